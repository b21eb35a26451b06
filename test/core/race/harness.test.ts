import { describe, expect, it } from 'vitest';
import { connectionsPerClient, fdShortfall, parseOpenFilesLimit } from '../../../src/core/race/fds.js';
import { harnessReport } from '../../../src/core/race/harness.js';

const load = (cpuMs: number, wallMs: number, p99 = 2) => ({ cpuUserUs: cpuMs * 800, cpuSystemUs: cpuMs * 200, wallMs, loopDelayP99Ms: p99, loopDelayMaxMs: p99 * 2 });

describe('harness self-check', () => {
  it('kept up when every process is below a core and its timers are on time', () => {
    const r = harnessReport(load(2000, 10_000), [load(4000, 10_000)], 35);
    expect(r).toMatchObject({ cpuPct: 20, workers: 1, workerCpuPctMax: 40, totalCores: 0.6, serverCpuPct: 35, keptUp: true });
  });

  it('names the busy process and late timers', () => {
    const r = harnessReport(load(9500, 10_000, 60), []);
    expect(r.keptUp).toBe(false);
    expect(r.reason).toBe('the harness may have been the bottleneck: the race process used 95% of a core, its timers ran 60 ms late (p99)');
    expect(harnessReport(load(100, 10_000), [load(100, 10_000, 80)]).reason).toContain("a worker's timers ran 80 ms late");
  });

  it('says when the machine itself was busy, so late timers are not blamed on the harness alone', () => {
    const r = harnessReport(load(4000, 10_000, 40), [], 20, { cores: 2, busyCores: 1.95 });
    expect(r.reason).toBe('the harness may have been the bottleneck: its timers ran 40 ms late (p99), the machine was busy (1.9 of 2 cores, 0.4 of them this race\'s clients)');
    expect(harnessReport(load(4000, 10_000), [], 20, { cores: 2, busyCores: 1.95 })).toMatchObject({ keptUp: true, machineBusyCores: 1.95 });
  });
});

describe('open files', () => {
  it('reads the soft limit from /proc/self/limits', () => {
    const text = 'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 524288               files\n';
    expect(parseOpenFilesLimit(text)).toBe(1024);
    expect(parseOpenFilesLimit('Max open files            unlimited            unlimited            files')).toBeUndefined();
  });

  it('counts a subscriber connection for kinds whose waiters listen, one per node for Redlock', () => {
    expect(connectionsPerClient('reentrant', 1)).toBe(2);
    expect(connectionsPerClient('token', 1)).toBe(1);
    expect(connectionsPerClient('redlock', 3)).toBe(3);
  });

  it('refuses in one line with the fix', () => {
    expect(fdShortfall(1000, 2, 1024)).toBe(
      '1000 clients in one process need about 2064 open files, and ulimit -n is 1024: raise it for this shell (ulimit -n 2064) or spread the clients over processes with --procs',
    );
    expect(fdShortfall(100, 2, 1024)).toBeUndefined();
    expect(fdShortfall(100_000, 2, undefined)).toBeUndefined();
  });
});
