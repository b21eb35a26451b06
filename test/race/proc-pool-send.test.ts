import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { ToWorker } from '../../src/race/ipc.js';
import { sendToWorker } from '../../src/race/proc-pool.js';

// A worker SIGKILLed by --chaos kill-holder right after it sent a request still looks connected,
// and the reply fails with EPIPE. A full run of the suite once died of exactly that ("Uncaught
// Exception: write EPIPE" in ProcPool.send during procs.test.ts). The child below keeps Node's
// documented contract for ChildProcess.send: a failed send goes to the callback when there is
// one, else it is emitted as an 'error' event, which nothing handles.

class DyingChild extends EventEmitter {
  connected = true;
  sent = 0;
  send(_msg: unknown, callback?: (err: Error | null) => void): boolean {
    this.sent += 1;
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    setImmediate(() => (callback ? callback(epipe) : this.emit('error', epipe)));
    return false;
  }
}

const stop: ToWorker = { type: 'stop' };

describe('sending to a worker that was just killed', () => {
  it('drops the failed send instead of emitting an error nobody handles', async () => {
    const child = new DyingChild();
    const errors: unknown[] = [];
    child.on('error', (err) => errors.push(err));
    sendToWorker(child as never, stop);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(child.sent).toBe(1);
    expect(errors).toEqual([]);
  });

  it('sends nothing once the channel is known to be closed', () => {
    const child = new DyingChild();
    child.connected = false;
    sendToWorker(child as never, stop);
    expect(child.sent).toBe(0);
  });
});
