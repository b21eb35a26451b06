#!/usr/bin/env node
// Issue 31's replay check, N times: every shipped scenario's unsafe variant is run once while a
// MONITOR trace records it, the recording becomes a scenario (`trace --from REC --scenario OUT`),
// and that scenario is run N times on one sandbox, its unsafe variant traced. Prints a table: per
// scenario the recorded finding, how many replays showed it again, how many reached another
// verdict (wrong: never acceptable), how many were inconclusive (the machine too busy for the
// race's timing, counted apart), and how the fixed variants came out. A scenario whose trace sees
// nothing unsafe (liveness races, Redlock races, writes the server never sees) is listed with
// what `trace --scenario` said. Exits 1 when a replay that was on time missed the finding in more
// than one run of 10, or any verdict was wrong.
//
//   node scripts/scenario-replay-repeat.mjs -n 10
//   node scripts/scenario-replay-repeat.mjs -n 3 silent-reacquire client-partition
//   node scripts/scenario-replay-repeat.mjs -n 10 --hogs 1     # beside one CPU hog per core
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { register } from 'tsx/esm/api';
import { loadText, startHogs } from './cpu-hogs.mjs';
import { parseRepeatArgs } from './repeat-args.mjs';

const USAGE = 'usage: node scripts/scenario-replay-repeat.mjs [-n runs] [--hogs per-core] [scenario ...]';

function fail(message) {
  console.error(message);
  process.exit(2);
}

function table(rows) {
  const header = ['scenario', 'recorded finding', 'same finding', 'wrong', 'late', 'fixed variants safe', 'note'];
  const cells = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells.map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

const { runs, hogs: hogsPerCore, names } = parseRepeatArgs(process.argv.slice(2), USAGE);
register();
const { listScenarios } = await import('../src/scenario/load.ts');
const check = await import('./replay/replay-check.ts');
const catalogue = (await listScenarios()).filter((s) => s.variants.some((v) => v.name === 'unsafe'));
const unknown = names.filter((n) => !catalogue.some((s) => s.name === n));
if (unknown.length > 0) fail(`not a shipped scenario with an unsafe variant: ${unknown.join(', ')}`);
const chosen = names.length > 0 ? catalogue.filter((s) => names.includes(s.name)) : catalogue;

const dir = mkdtempSync(join(tmpdir(), 'redlock-replay-repeat-'));
const env = { HOME: process.env.HOME, PATH: process.env.PATH, XDG_STATE_HOME: join(dir, 'state') };
const loadBefore = loadText();
// Bounded by a generous 2 minutes per replay run; stopped by pid at the end.
const hogs = hogsPerCore > 0 ? startHogs(hogsPerCore, chosen.length * runs * 120_000) : undefined;
if (hogs) console.error(`${hogs.count} CPU hogs beside the runs (${hogsPerCore} per core, pids ${hogs.pids.join(' ')}); load average ${loadBefore}`);
const started = performance.now();
const rows = [];
let failed = false;
try {
  for (const scenario of chosen) {
    const rec = await check.recordAndConvert(scenario, dir, env);
    if (rec.replay === undefined) {
      const late = rec.recording.run.outcome === 'inconclusive' ? 'recorded run late (inconclusive 3 times); ' : '';
      const said = `${late}exit ${rec.cli.code}: ${rec.cli.stderr.trim().replace(/^redlock-cli: trace --scenario: /, '')}`;
      rows.push([scenario.name, rec.kind ?? 'none', '-', '-', '-', '-', said]);
      console.error(`${scenario.name}: recording ${rec.recording.run.outcome}; ${said}`);
      if (rec.kind !== undefined) failed = true; // a finding the command could not turn into a scenario
      continue;
    }
    const failover = check.replaysFailover(rec.replay);
    const counts = { same: 0, wrong: 0, late: 0, failed: 0 };
    const fixes = new Map();
    await check.onSandbox(rec.replay, dir, async (sandbox) => {
      for (let i = 1; i <= runs; i++) {
        // A run that fails (a sandbox that could not be put back in shape) is counted, not fatal.
        const r = await check.replayOnce(rec.replay, sandbox).catch((err) => {
          console.error(`${scenario.name} ${i}/${runs}: FAILED to run: ${err.message}`);
          return undefined;
        });
        if (r === undefined) {
          counts.failed++;
          continue;
        }
        const same = r.unsafe.outcome === 'as-expected' && check.sameFinding(rec.kind, r.unsafe.kinds, failover);
        if (r.unsafe.outcome === 'inconclusive') counts.late++;
        else if (r.unsafe.outcome === 'not-as-expected') counts.wrong++;
        else if (same) counts.same++;
        for (const f of r.fixed) {
          const c = fixes.get(f.variant) ?? { safe: 0, wrong: 0, late: 0 };
          c[f.outcome === 'as-expected' ? 'safe' : f.outcome === 'inconclusive' ? 'late' : 'wrong']++;
          fixes.set(f.variant, c);
        }
        console.error(`${scenario.name} ${i}/${runs}: unsafe ${r.unsafe.outcome}${r.unsafe.outcome === 'as-expected' ? '' : ` (${r.unsafe.why})`}, trace found ${r.unsafe.kinds.join(', ') || 'nothing unsafe'}; ${r.fixed.map((f) => `${f.variant} ${f.outcome}`).join(', ')} (load average ${loadText()})`);
      }
    });
    const onTime = runs - counts.late - counts.failed;
    const fixWrong = [...fixes.values()].reduce((n, c) => n + c.wrong, 0);
    if (counts.wrong > 0 || counts.failed > 0 || fixWrong > 0 || counts.same < Math.ceil(onTime * 0.9)) failed = true;
    const fixText = [...fixes].map(([v, c]) => `${v} ${c.safe}/${runs}${c.late ? ` (${c.late} late)` : ''}${c.wrong ? ` (${c.wrong} WRONG)` : ''}`).join(', ');
    rows.push([scenario.name, rec.kind, `${counts.same}/${onTime}`, String(counts.wrong), String(counts.late), fixText, `${counts.failed ? `${counts.failed} FAILED to run; ` : ''}fault: ${rec.cli.stderr.match(/the fault is ([a-z0-9 ]+)/)?.[1] ?? '?'}`]);
  }
} finally {
  hogs?.stop();
  rmSync(dir, { recursive: true, force: true });
}
console.log(table(rows));
console.log(
  `\n${failed ? 'FAIL' : 'PASS'}: ${chosen.length} unsafe variants, ${runs} replay runs each; ${hogs ? `${hogs.count} CPU hogs (${hogsPerCore} per core), stopped; ` : ''}` +
    `took ${((performance.now() - started) / 1000).toFixed(1)} s; load average before ${loadBefore}, after ${loadText()}`,
);
process.exitCode = failed ? 1 : 0;
