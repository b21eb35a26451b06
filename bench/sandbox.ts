// How long `sandbox up` takes per topology, the memory of each node, and how long a Sentinel
// failover takes, on real redis-servers in a temp dir (always stopped, also on error).
//   npx tsx bench/sandbox.ts      (BENCH_RUNS=5 starts per topology, BENCH_FAILOVERS=3 per --how)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type FailoverHow, type SandboxHandle, type StartOptions } from '../src/sandbox/index.js';
import { rssKb } from '../src/sandbox/procfs.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const FAILOVERS = Number(process.env.BENCH_FAILOVERS ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'redlock-bench-sandbox-'));
const running = new Set<SandboxHandle>();

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function up(opts: Omit<StartOptions, 'dir'>): Promise<{ sandbox: SandboxHandle; ms: number }> {
  const started = performance.now();
  const sandbox = await startSandbox({ ...opts, dir });
  running.add(sandbox);
  return { sandbox, ms: performance.now() - started };
}

async function down(sandbox: SandboxHandle): Promise<void> {
  running.delete(sandbox);
  await sandbox.stop();
}

const TOPOLOGIES: readonly (Omit<StartOptions, 'dir'> & { label: string })[] = [
  { label: 'single', topology: 'single' },
  { label: 'replicated (1+2)', topology: 'replicated' },
  { label: 'sentinel (1+2, 3 sentinels)', topology: 'sentinel' },
  { label: 'redlock (5 nodes)', topology: 'redlock' },
  { label: 'cluster (3 primaries)', topology: 'cluster' },
  { label: 'cluster --replicas 1', topology: 'cluster', replicas: 1 },
];

async function main(): Promise<void> {
  console.log(`sandbox up, median of ${RUNS} (min-max), and memory per node (VmRSS) right after up:\n`);
  console.log('| topology | processes | up: median ms | min-max ms | RSS per node MB | RSS total MB |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const t of TOPOLOGIES) {
    const times: number[] = [];
    let rss: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const { sandbox, ms } = await up({ ...t, name: `bench-${t.topology}` });
      times.push(ms);
      rss = sandbox.nodes.map((n) => (rssKb(n.pid) ?? 0) / 1024);
      await down(sandbox);
    }
    const perNode = `${Math.min(...rss).toFixed(1)}-${Math.max(...rss).toFixed(1)}`;
    const total = rss.reduce((a, b) => a + b, 0).toFixed(1);
    console.log(`| ${t.label} | ${rss.length} | ${median(times).toFixed(0)} | ${Math.min(...times).toFixed(0)}-${Math.max(...times).toFixed(0)} | ${perNode} | ${total} |`);
  }
  console.log(`\nsentinel failover, from the fault until every sentinel reports the promoted replica (median of ${FAILOVERS}):\n`);
  console.log('| --how | median ms | min-max ms |');
  console.log('|---|---:|---:|');
  for (const how of ['kill', 'pause', 'force'] as const satisfies readonly FailoverHow[]) {
    const times: number[] = [];
    for (let i = 0; i < FAILOVERS; i++) {
      const { sandbox } = await up({ topology: 'sentinel', name: 'bench-failover' });
      times.push((await sandbox.failover({ how })).ms);
      await down(sandbox);
    }
    console.log(`| ${how} | ${median(times).toFixed(0)} | ${Math.min(...times)}-${Math.max(...times)} |`);
  }
}

try {
  await main();
} finally {
  for (const sandbox of running) await sandbox.stop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
