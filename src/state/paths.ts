import { homedir } from 'node:os';
import { join } from 'node:path';

/** The per-user state directory ($XDG_STATE_HOME/redlock-cli, default ~/.local/state/redlock-cli). */
export function stateDir(env: Readonly<Record<string, string | undefined>>): string {
  const base = env.XDG_STATE_HOME && env.XDG_STATE_HOME !== '' ? env.XDG_STATE_HOME : join(env.HOME ?? homedir(), '.local', 'state');
  return join(base, 'redlock-cli');
}

/** The per-user config directory ($XDG_CONFIG_HOME/redlock-cli, default ~/.config/redlock-cli). */
export function configDir(env: Readonly<Record<string, string | undefined>>): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(env.HOME ?? homedir(), '.config');
  return join(base, 'redlock-cli');
}

/** Saved targets and the current one (state/targets.ts reads and writes it). */
export const targetsFile = (env: Readonly<Record<string, string | undefined>>): string => join(configDir(env), 'targets.json');
