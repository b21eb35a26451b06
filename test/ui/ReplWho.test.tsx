// `who` in the REPL, on a real redis-server: the report goes to the panel, where it stays until
// the next one, with the target it was read from.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { urlTarget } from '../../src/repl/target.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { mountRepl, unmountAll } from './repl-harness.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterEach(unmountAll);
afterAll(async () => {
  await server.stop();
});

it('who draws its report on the panel: the REPL client holding, on its own connection', async () => {
  const r = await mountRepl(urlTarget(server.url));
  r.enter('as A hold whoed --watchdog 3s');
  await r.until((f) => /A holds whoed reentrant .*\(hold %1\)/.test(f), 'A holding in %1');
  r.enter('who whoed --sample 5s');
  const panel = await r.until((f) => /who on 127\.0\.0\.1:\d+, sampled/.test(f), 'the who section', 30_000);
  expect(panel).toMatch(/^│ *who on 127\.0\.0\.1:\d+, sampled [\d.]+ m?s *│$/m);
  expect(panel).toMatch(/^│ *whoed {2}reentrant \(redisson\) {2}lease [\d.]+ m?s *│$/m);
  expect(panel).toMatch(/^│ *holder redlock-cli:repl:A \(127\.0\.0\.1:\d+\) {2}age [\d.]+ m?s, idle [\d.]+ m?s {2}owner [0-9a-f]{8}…:1, seen/m);
}, 60_000);
