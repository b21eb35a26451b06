import { homedir } from 'node:os';
import { join } from 'node:path';

/** The per-user state directory ($XDG_STATE_HOME/redlock-cli, default ~/.local/state/redlock-cli). */
export function stateDir(env: Readonly<Record<string, string | undefined>>): string {
  const base = env.XDG_STATE_HOME && env.XDG_STATE_HOME !== '' ? env.XDG_STATE_HOME : join(env.HOME ?? homedir(), '.local', 'state');
  return join(base, 'redlock-cli');
}
