import { loadSandbox } from '../sandbox/index.js';
import type { ReplHost } from './host.js';
import { describeEndpoint as describeTarget } from '../core/endpoint.js';

/**
 * Attaches a sandbox by name (the only one up without a name) and says where commands go now;
 * `howToName` is how the line that asked names one (`attach <name>`, or `repl --sandbox <name>`).
 */
export async function attachSandbox(session: ReplHost, name: string | undefined, howToName = 'attach <name>'): Promise<void> {
  const handle = await loadSandbox(name, { env: session.env, howToName });
  session.attach(handle);
  const { target } = session.state.target;
  session.print(
    `attached sandbox "${handle.name}" (${handle.topology}): commands go to ${describeTarget(target.spec)}; its nodes are on the panel`,
  );
}
