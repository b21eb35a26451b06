import { loadSandbox } from '../sandbox/index.js';
import type { ReplHost } from './host.js';

/** Attaches a sandbox by name (the only one up without a name) and says where commands go now. */
export async function attachSandbox(session: ReplHost, name: string | undefined): Promise<void> {
  const handle = await loadSandbox(name, { env: session.env });
  session.attach(handle);
  const { target } = session.state.target;
  session.print(
    `attached sandbox "${handle.name}" (${handle.topology}): commands go to ${target.args.join(' ')}; its nodes are on the panel`,
  );
}
