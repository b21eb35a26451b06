// Entry point of a race worker process (forked by proc-pool.ts from dist/race/worker.js): runs
// its share of the clients, reaches the demo resource in the parent over IPC, and streams the
// history events back, batched per event-loop turn. If the parent goes away, it exits at once.

import type { HistoryEvent } from '../core/scenario/history.js';
import { CliError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { originFromText, raceClock } from './clock.js';
import type { ResourcePort } from './client.js';
import type { FromWorker, ResourceRequest, ToWorker, WorkerConfig } from './ipc.js';
import { watchLoad } from './load.js';
import { LocalPool } from './local-pool.js';
import { Recorder } from './recorder.js';
import { protocolSessions } from './session.js';

const send = (msg: FromWorker): void => void process.send?.(msg);
/** Sends a last message, then closes the channel once it is written (which ends this process). */
const sendLast = (msg: FromWorker): void => void process.send?.(msg, undefined, {}, () => process.disconnect());

let pending: HistoryEvent[] = [];
let flushQueued = false;
function emit(event: HistoryEvent): void {
  pending.push(event);
  if (flushQueued) return;
  flushQueued = true;
  setImmediate(flush);
}
function flush(): void {
  flushQueued = false;
  if (pending.length === 0) return;
  send({ type: 'events', events: pending });
  pending = [];
}

// Resource requests wait for the parent's reply by request id.
const replies = new Map<number, (value: number | boolean | null) => void>();
let nextRid = 0;
function request(req: ResourceRequest): Promise<number | boolean | null> {
  const rid = nextRid++;
  return new Promise((resolve) => {
    replies.set(rid, resolve);
    send({ type: 'request', rid, req });
  });
}
const resource: ResourcePort = {
  read: async (key) => Number(await request({ op: 'read', key })),
  set: async (key, value) => void (await request({ op: 'set', key, value })),
  write: async (key, writer, token, value) => (await request({ op: 'write', key, writer, value, ...(token !== undefined ? { token } : {}) })) === true,
};

let pool: LocalPool | undefined;
let origin = 0n;
let load: ReturnType<typeof watchLoad> | undefined;

async function start(config: WorkerConfig): Promise<void> {
  // The clock is replaced on `go`; events before it (none are recorded while connecting) would read 0.
  const rec = new Recorder(() => (origin === 0n ? 0 : raceClock(origin)()), emit, config.index);
  pool = new LocalPool(protocolSessions(config.session), config, resource, rec);
  try {
    await pool.connect(config.clients);
    send({ type: 'ready' });
  } catch (err) {
    sendLast({ type: 'failed', message: err instanceof Error ? err.message : String(err), exitCode: err instanceof CliError ? err.exitCode : ExitCode.unexpected });
  }
}

async function stop(): Promise<void> {
  await pool?.stop();
  flush();
  const reading = load?.read();
  sendLast({
    type: 'done',
    load: {
      cpuUserUs: reading?.cpuUserUs ?? 0,
      cpuSystemUs: reading?.cpuSystemUs ?? 0,
      wallMs: reading?.wallMs ?? 0,
      loopDelayP99Ms: reading?.loopDelayP99Ms ?? 0,
      loopDelayMaxMs: reading?.loopDelayMaxMs ?? 0,
    },
  });
}

process.on('message', (msg: ToWorker) => {
  switch (msg.type) {
    case 'start':
      void start(msg.config);
      break;
    case 'go':
      origin = originFromText(msg.origin);
      load = watchLoad();
      pool?.go();
      break;
    case 'reply':
      replies.get(msg.rid)?.(msg.value);
      replies.delete(msg.rid);
      break;
    case 'stop':
      void stop();
      break;
  }
});
// The parent died or closed the channel: nobody is left to record what we do.
process.on('disconnect', () => process.exit(0));
