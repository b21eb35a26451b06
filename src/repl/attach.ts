import { NotFoundError } from '../core/errors.js';
import { loadSandbox } from '../sandbox/index.js';
import type { ReplSession } from './session.js';

/** Attaches a sandbox by name (the only one up without a name) and says where commands go now. */
export async function attachSandbox(session: ReplSession, name: string | undefined): Promise<void> {
  const handle = await loadSandbox(name, { env: session.env });
  if (!session.attachedSandbox) session.beforeAttach = session.target;
  session.attach(handle);
  session.print(`attached sandbox "${handle.name}" (${handle.topology}): commands go to ${session.target.args.join(' ')}; its nodes are on the panel`);
}

/** After `sandbox down`: if the attached sandbox is gone, go back to the target from before it. */
export async function dropStoppedSandbox(session: ReplSession): Promise<void> {
  const attached = session.attachedSandbox;
  if (!attached) return;
  try {
    await loadSandbox(attached.name, { env: session.env });
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    session.detachSandbox();
    session.startedSandboxes.delete(attached.name);
    if (session.beforeAttach) session.setTarget(session.beforeAttach);
    session.print(`sandbox "${attached.name}" is down: commands go to ${session.target.label} again`);
  }
}
