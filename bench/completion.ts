// A Tab, as the shells run it: `redlock-cli __complete --shell zsh --files-line -- <words>` as a process, paired
// with `node -e 0` (the floor no Tab can beat), 15 rounds each. Two lines: an option (answered
// from the saved command tree, no Redis) and a key (the lock keys of a local redis-server holding
// 50 locks, read within the Tab's budget). Figures go in docs/performance.md ("Shell completion").
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { startRedis } from '../test/helpers/redis-server.js';
import { describePair, pairedRuns } from './startup.js';

const BIN = new URL('../bin/redlock-cli.js', import.meta.url).pathname;
const RUNS = 15;
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(', ');

const server = await startRedis();
try {
  for (let i = 0; i < 50; i++) execFileSync('node', [BIN, 'acquire', `orders:${i}`, '--lease', '10m', '-p', String(server.port)], { stdio: 'ignore' });
  console.log(`node ${process.version}; load average (1, 5, 15 min) ${load()}`);
  const tab = (...words: string[]) => [BIN, '__complete', '--shell', 'zsh', '--files-line', '--', ...words];
  const option = await pairedRuns(RUNS, tab('inspect', '--ki'), ['-e', '0']);
  console.log(describePair('Tab after `inspect --ki`', 'node -e 0', option));
  const key = await pairedRuns(RUNS, tab('inspect', '-p', String(server.port), 'orders:1'), ['-e', '0']);
  console.log(describePair('Tab after `inspect -p <port> orders:1` (50 locks)', 'node -e 0', key));
  console.log(`load average after ${load()}`);
} finally {
  await server.stop();
}
