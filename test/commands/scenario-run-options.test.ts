import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from '../../src/sandbox/procfs.js';
import { NO_WRONG_VERDICT, runCli, tempStateEnv, withoutRetryNotes } from '../helpers/run-cli.js';
import { probe } from '../helpers/sandbox.js';

// `scenario run --keep-sandbox` and `--speed` through run(argv, ctx), on the shipped
// expired-lease-misdeletion (S1): a single-node sandbox, steps up to 1.2 s and a 300 ms settle.
const env = tempStateEnv();
const cli = (...argv: string[]) => runCli(argv, env);
const sandboxes = join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes');
const S1 = 'expired-lease-misdeletion';
const SANDBOX = `scenario-${S1}`.slice(0, 32);
const PLANNED_MS = 1500;

interface NodeJson {
  name: string;
  port: number;
  pid: number;
  state: string;
}
interface OpJson {
  kind: string;
  t: number;
  client?: string;
  op?: string;
  phase?: string;
  holders?: string[];
  ttlMs?: number;
}
interface RunJson {
  matched: boolean;
  variants: { variant: string; matched: boolean; outcome: string; found: string[]; durationMs: number; history: { events: OpJson[] } }[];
}

// A kept sandbox outlives the command by design: whatever a failed test left up is stopped here.
const keptPids = new Set<number>();
afterAll(async () => {
  await cli('sandbox', 'down', '--all');
  for (const pid of keptPids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

describe('redlock-cli scenario run --keep-sandbox', () => {
  it('leaves the sandbox up where sandbox status finds it, says how to remove it, and sandbox down --all removes it', async () => {
    const r = await cli('scenario', 'run', S1, '--variant', 'fixed', '--keep-sandbox');
    expect(NO_WRONG_VERDICT, r.stderr).toContain(r.code);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^(ok {2}|LATE) {2}fixed {2}expected safe, found /);
    expect(withoutRetryNotes(r.stderr)).toBe(
      `running ${S1} on a single sandbox...\n` +
        `sandbox "${SANDBOX}" kept running: redlock-cli sandbox status --name ${SANDBOX}; remove it with redlock-cli sandbox down --name ${SANDBOX}\n`,
    );

    // The commands the note names work, in the same state dir.
    const status = await cli('sandbox', 'status', '--json');
    expect(status.code).toBe(0);
    const up = JSON.parse(status.stdout) as { name: string; topology: string; nodes: NodeJson[] }[];
    expect(up.map((s) => [s.name, s.topology])).toEqual([[SANDBOX, 'single']]);
    const nodes = up[0]!.nodes;
    for (const n of nodes) keptPids.add(n.pid);
    expect(nodes.map((n) => n.state)).toEqual(['running']);
    expect(nodes.every((n) => isAlive(n.pid))).toBe(true);
    expect(await probe(nodes[0]!.port)).toBe('PONG');

    const down = await cli('sandbox', 'down', '--all');
    expect(down.code).toBe(0);
    expect(down.stdout).toMatch(new RegExp(`^stopped sandbox "${SANDBOX}": 1 process\\(es\\) killed; removed `));
    expect(nodes.filter((n) => isAlive(n.pid))).toEqual([]);
    expect(await probe(nodes[0]!.port)).toBe('refused');
    expect(JSON.parse((await cli('sandbox', 'status', '--json')).stdout)).toEqual([]);
    expect(readdirSync(sandboxes)).toEqual([]);
  }, 30_000);

  it('without it, the sandbox is gone when the run ends', async () => {
    const r = await cli('scenario', 'run', S1, '--variant', 'fixed', '--json');
    expect(NO_WRONG_VERDICT, r.stderr).toContain(r.code);
    expect(JSON.parse((await cli('sandbox', 'status', '--json')).stdout)).toEqual([]);
    expect(existsSync(join(sandboxes, SANDBOX))).toBe(false);
  }, 30_000);
});

describe('redlock-cli scenario run --speed', () => {
  // Half speed rather than double: a busy machine's timer delays count half in the file's ms, not
  // twice, so the race and the bounds below keep their slack.
  it("--speed 0.5 plays the file at half speed with doubled leases; the history keeps the file's times and the verdict holds", async () => {
    const r = await cli('scenario', 'run', S1, '--variant', 'unsafe', '--speed', '0.5', '--json');
    expect(NO_WRONG_VERDICT, r.stderr).toContain(r.code);
    expect(withoutRetryNotes(r.stderr)).toBe('');
    const out = JSON.parse(r.stdout) as RunJson;
    // Inconclusive only when the machine was too busy for the race's timing (exit 8), never wrong.
    expect(out.variants.map((v) => [v.variant, v.outcome])).toEqual([['unsafe', r.code === 0 ? 'as-expected' : 'inconclusive']]);
    if (r.code === 0) expect(out.variants[0]!.found).toEqual(['mutual-exclusion']);
    const v = out.variants[0]!;
    // The variant's wall time: twice the file's 1.5 s plan, plus set-up.
    expect(v.durationMs).toBeGreaterThanOrEqual(PLANNED_MS * 2);
    expect(v.durationMs).toBeLessThan(PLANNED_MS * 2 + 1000);
    const events = v.history.events;
    // Times are recorded in the file's ms: each step starts near its `at`, not at twice it.
    const invokedAt = (client: string, op: string): number => events.find((e) => e.kind === 'op' && e.client === client && e.op === op && e.phase === 'invoke')!.t;
    const steps: [string, string, number][] = [
      ['A', 'acquire', 0],
      ['A', 'pause', 20],
      ['B', 'acquire', 300],
      ['B', 'enter', 450],
      ['C', 'acquire', 600],
      ['C', 'enter', 620],
      ['B', 'leave', 1000],
      ['C', 'leave', 1200],
    ];
    const late = steps.map(([client, op, at]) => ({ client, op, at, late: Math.round(invokedAt(client, op) - at) }));
    // A timer tick early at most, and late by scheduling only: a clock in real ms would put B's acquire at 800.
    expect(late.filter((s) => s.late < -5 || s.late > 100)).toEqual([]);
    // The server holds A's 300 ms lease for 600 real ms: the PTTL the observer read just after A took it.
    const first = events.find((e) => e.kind === 'server' && e.holders?.[0] === 'A')!;
    expect(first.ttlMs).toBeGreaterThan(400);
    expect(first.ttlMs).toBeLessThanOrEqual(600);
  }, 30_000);
});
