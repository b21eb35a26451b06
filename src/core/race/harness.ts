// The harness's self-check: how busy the processes driving the clients were. A process near a
// full core, or an event loop that answered timers late, delays the clients' steps itself, and
// then the race measured the harness rather than the lock; the summary says which it was.

/** What one process measured about itself over the race. */
export interface ProcessLoad {
  readonly cpuUserUs: number;
  readonly cpuSystemUs: number;
  readonly wallMs: number;
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
}

export interface HarnessReport {
  /** The parent's CPU time as a share of one core (100 = one core busy all the time). */
  readonly cpuPct: number;
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
  readonly workers: number;
  /** The busiest worker's share of one core, and the worst worker's loop delay p99 and max. */
  readonly workerCpuPctMax: number;
  readonly workerLoopDelayP99Ms: number;
  readonly workerLoopDelayMaxMs: number;
  /** Parent and workers together, in cores. */
  readonly totalCores: number;
  /** The lock server's CPU over the race, as a share of one core (undefined when it could not be read). */
  readonly serverCpuPct?: number | undefined;
  /** The machine's cores, and how many were busy on average (everything on it, not only the race). */
  readonly machineCores?: number | undefined;
  readonly machineBusyCores?: number | undefined;
  readonly keptUp: boolean;
  /** Why not, in one sentence; undefined when it kept up. */
  readonly reason?: string | undefined;
}

/** A process busier than this share of a core, or with timers later than this, held its clients back. */
export const BUSY_CPU_PCT = 85;
export const LATE_LOOP_MS = 20;

const pct = (load: ProcessLoad): number => (load.wallMs > 0 ? ((load.cpuUserUs + load.cpuSystemUs) / 1000 / load.wallMs) * 100 : 0);

export interface MachineLoad {
  readonly cores: number;
  readonly busyCores?: number | undefined;
}

/** Above this share of all cores busy, late timers may be the machine's doing rather than the harness's. */
export const BUSY_MACHINE = 0.9;

/** Folds the parent's and the workers' own figures into the report and its verdict. */
export function harnessReport(parent: ProcessLoad, workers: readonly ProcessLoad[], serverCpuPct?: number, machine?: MachineLoad): HarnessReport {
  const cpuPct = pct(parent);
  const workerPcts = workers.map(pct);
  const workerCpuPctMax = Math.max(0, ...workerPcts);
  const workerLoopDelayP99Ms = Math.max(0, ...workers.map((w) => w.loopDelayP99Ms));
  const workerLoopDelayMaxMs = Math.max(0, ...workers.map((w) => w.loopDelayMaxMs));
  const reasons: string[] = [];
  if (cpuPct > BUSY_CPU_PCT) reasons.push(`the race process used ${cpuPct.toFixed(0)}% of a core`);
  if (parent.loopDelayP99Ms > LATE_LOOP_MS) reasons.push(`its timers ran ${parent.loopDelayP99Ms.toFixed(0)} ms late (p99)`);
  if (workerCpuPctMax > BUSY_CPU_PCT) reasons.push(`a worker used ${workerCpuPctMax.toFixed(0)}% of a core`);
  if (workerLoopDelayP99Ms > LATE_LOOP_MS) reasons.push(`a worker's timers ran ${workerLoopDelayP99Ms.toFixed(0)} ms late (p99)`);
  const totalCores = (cpuPct + workerPcts.reduce((a, b) => a + b, 0)) / 100;
  const busy = machine?.busyCores;
  if (reasons.length > 0 && machine && busy !== undefined && busy > BUSY_MACHINE * machine.cores) {
    reasons.push(`the machine was busy (${busy.toFixed(1)} of ${machine.cores} cores, ${totalCores.toFixed(1)} of them this race's clients)`);
  }
  return {
    cpuPct,
    loopDelayP99Ms: parent.loopDelayP99Ms,
    loopDelayMaxMs: parent.loopDelayMaxMs,
    workers: workers.length,
    workerCpuPctMax,
    workerLoopDelayP99Ms,
    workerLoopDelayMaxMs,
    totalCores,
    serverCpuPct,
    machineCores: machine?.cores,
    machineBusyCores: busy,
    keptUp: reasons.length === 0,
    reason: reasons.length > 0 ? `the harness may have been the bottleneck: ${reasons.join(', ')}` : undefined,
  };
}
