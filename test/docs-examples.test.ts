import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rawClient } from './helpers/lock-env.js';
import { startRedis, type RedisServer } from './helpers/redis-server.js';

// The node-redlock example of docs/guide/inspect.md, run as a reader would run it: it takes the
// lock, works, releases and exits by itself (a client left connected keeps node running forever,
// and a release due exactly when the lease ends crashes on the expired lock). Its durations are
// scaled down ten times and its URL points at a server of the test's own.

const run = promisify(execFile);
let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

/** The first ```js block of `file` that imports `library`. */
function example(file: string, library: string): string {
  const blocks = [...readFileSync(file, 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const block = blocks.find((b) => b.includes(`from '${library}'`));
  if (!block) throw new Error(`no js example importing ${library} in ${file}`);
  return block;
}

it('the node-redlock example of the inspect guide releases its lock and exits by itself', async () => {
  const code = example('docs/guide/inspect.md', 'redlock')
    .replaceAll('redis://127.0.0.1:6379', server.url)
    .replace(/\b(\d+)_000\b/g, (_, seconds: string) => String(Number(seconds) * 100));
  // Bounded: the old example never exits. Bare imports resolve from the repository (the cwd).
  const r = await run(process.execPath, ['--input-type=module', '-e', code], { timeout: 30_000 }).then(
    (ok) => ({ code: 0, stderr: ok.stderr }),
    (err: { code: number | null; signal?: string; stderr: string }) => ({
      code: err.code ?? err.signal,
      stderr: err.stderr,
    }),
  );
  expect(r).toEqual({ code: 0, stderr: '' });
  const raw = rawClient(server);
  try {
    expect(await raw.exists('pay')).toBe(0);
  } finally {
    raw.disconnect();
  }
}, 60_000);
