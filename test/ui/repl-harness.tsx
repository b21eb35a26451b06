// Mounting the REPL for ink-testing-library tests: the same session and view `redlock-cli repl`
// mounts, only the terminal is fake. Sessions mounted here are closed by unmountAll().
import { render } from 'ink-testing-library';
import type { ReplSession } from '../../src/repl/session.js';
import { createSession } from '../../src/repl/start.js';
import type { ReplTarget } from '../../src/repl/target.js';
import { AtTerminalEdge } from '../../src/ui/AtTerminalEdge.js';
import { ReplApp } from '../../src/ui/ReplApp.js';
import { tempStateEnv } from '../helpers/run-cli.js';

export const KEY = {
  enter: '\r',
  tab: '\t',
  up: '\u001B[A',
  down: '\u001B[B',
  ctrlC: '\u0003',
  ctrlD: '\u0004',
  ctrlU: '\u0015',
};

const mounted: { session: ReplSession; unmount: () => void }[] = [];

/** Closes every session mounted so far (afterEach). */
export async function unmountAll(): Promise<void> {
  for (const m of mounted.splice(0)) {
    await m.session.close();
    m.unmount();
  }
}

export type MountedRepl = Awaited<ReturnType<typeof mountRepl>>;

export async function mountRepl(target: ReplTarget, env: Record<string, string | undefined> = tempStateEnv()) {
  const session = await createSession(env, { target, intervalMs: 100 });
  // Inside AtTerminalEdge, as mountLive draws it on a real terminal.
  const view = render(
    <AtTerminalEdge>
      <ReplApp session={session} tickMs={50} />
    </AtTerminalEdge>,
  );
  mounted.push({ session, unmount: view.unmount });
  const frame = (): string => view.lastFrame() ?? '';
  /** Waits until the frame satisfies `check` (ink repaints at most every few ms; a loaded machine is slower). */
  const until = async (check: (f: string) => boolean, what: string, ms = 8000): Promise<string> => {
    const deadline = Date.now() + ms;
    while (!check(frame())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last frame:\n${frame()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return frame();
  };
  const shows = (text: string, ms?: number) => until((f) => f.includes(text), JSON.stringify(text), ms);
  /** The line being edited: the last prompt line of the frame, without the cursor's trailing space. */
  const prompt = (): string => {
    const lines = frame()
      .split('\n')
      .filter((l) => /^[A-Z][\w-]*@\S+>( |$)/.test(l));
    return (lines.at(-1) ?? '').replace(/^\S+>/, '').trim();
  };
  const promptIs = (text: string) => until(() => prompt() === text, `prompt "${text}" (is "${prompt()}")`);
  /** The live panel: the box drawn under the output ('' when there is none). */
  const panel = (): string => /┌[^]*└[─]*┘/.exec(frame())?.[0] ?? '';
  /** The output area's text from the echo of the last line typed on. */
  const since = (line: string): string => {
    const f = frame();
    const at = f.lastIndexOf(`> ${line}\n`);
    return at < 0 ? '' : f.slice(at);
  };
  const type = (text: string): void => void view.stdin.write(text);
  return {
    session,
    env,
    view,
    frame,
    until,
    shows,
    prompt,
    promptIs,
    panel,
    since,
    type,
    enter: (line: string) => type(`${line}${KEY.enter}`),
  };
}
