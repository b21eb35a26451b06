import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { monitorLog } from '../helpers/monitor-log.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// `trace --from` against output committed before any speed work on it (golden/README.md says what
// each log holds): the events, findings, chart and summary of every log must stay byte for byte
// the same, so a faster reader can never change a verdict. An output that changes on purpose is
// rewritten with `npx vitest run test/trace/from-golden.test.ts -u` and the diff reviewed.

const dir = mkdtempSync(join(tmpdir(), 'redlock-trace-golden-'));
const generated = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};
const here = (name: string) => new URL(`./golden/${name}`, import.meta.url).pathname;
const coreFixture = (name: string) => new URL(`../core/trace/fixtures/${name}`, import.meta.url).pathname;

const LOGS: readonly (readonly [string, () => string])[] = [
  ['real-traffic', () => here('real-traffic.monitor')],
  ['edge', () => here('edge.monitor')],
  ['released', () => generated('released.monitor', monitorLog('released', 150))],
  ['expiring', () => generated('expiring.monitor', monitorLog('expiring', 150))],
  ['redisson-batched-watchdog', () => coreFixture('redisson-batched-watchdog.monitor.txt')],
  ['spring-integration', () => coreFixture('spring-integration-v7.1.1.monitor')],
  ['shedlock', () => coreFixture('shedlock-7.9.0.monitor')],
];

describe('trace --from gives the committed output', () => {
  for (const [name, file] of LOGS) {
    it(`${name}: --json and text`, async () => {
      const env = tempStateEnv();
      const json = await runCli(['trace', '--from', file(), '--json'], env);
      const text = await runCli(['trace', '--from', file()], env);
      expect(json.stderr + text.stderr).toBe('');
      expect(json.code).toBe(text.code);
      await expect(`exit ${json.code}\n${json.stdout}`).toMatchFileSnapshot(`golden/${name}.json.golden`);
      await expect(`exit ${text.code}\n${text.stdout}`).toMatchFileSnapshot(`golden/${name}.txt.golden`);
    });
  }
});
