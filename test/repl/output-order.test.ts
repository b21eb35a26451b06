// The order of the REPL's output lines does not depend on when Redis answers: a command's own
// lines stay together, and what the panel noticed meanwhile (the lock it just took changing
// hands) follows them. The panel reads right after a command reports a change, so its read used
// to answer while `acquire` was still writing its owner memory, and its line landed between
// "acquired ..." and "release it with: ..." or after them, depending on the machine's load.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplSession } from '../../src/repl/session.js';
import { createSession } from '../../src/repl/start.js';
import { urlTarget } from '../../src/repl/target.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { tempStateEnv } from '../helpers/run-cli.js';

let server: RedisServer;
let session: ReplSession;

beforeAll(async () => {
  server = await startRedis();
  session = await createSession(tempStateEnv(), { target: urlTarget(server.url), intervalMs: 100 });
});
afterAll(async () => {
  await session?.close();
  await server?.stop();
});

const texts = (): string[] => session.state.output.map((l) => l.text);

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; output:\n${texts().join('\n')}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Types a line and waits until it is done and the panel has logged `noticed`; returns the lines from its echo on. */
async function enter(line: string, noticed: RegExp): Promise<string[]> {
  const from = texts().length;
  session.submit(line);
  await until(
    () =>
      texts()
        .slice(from)
        .some((t) => noticed.test(t)),
    `${noticed} after "${line}"`,
  );
  return texts().slice(from);
}

describe('REPL output order', () => {
  it("acquire's own lines come together, then the panel's, in each of 5 rounds", async () => {
    session.submit('watch pay');
    await until(() => session.state.panel.views.pay !== undefined, 'the panel reading pay');
    for (let round = 1; round <= 5; round++) {
      const lines = await enter('acquire pay --lease 30s', /^pay: acquired by /);
      const shape = lines.map((t) =>
        t.startsWith('acquired "pay"')
          ? 'result'
          : t.startsWith('release it with:')
            ? 'hint'
            : t.startsWith('pay: acquired by')
              ? 'panel'
              : t.includes('> acquire pay')
                ? 'echo'
                : t,
      );
      expect(shape, `round ${round}`).toEqual(['echo', 'result', 'hint', 'panel']);
      await enter('release pay', /^pay: released by /);
    }
  });
});
