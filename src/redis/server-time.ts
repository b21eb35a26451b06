// The server's clock at each lock command, for callers that measure on it (race's server-timed
// waits and holds). Inside withServerTimes every lock command (a script run, a native
// compare-and-delete) goes out in one pipeline with TIME right behind it: one write, so the
// server reads both together and runs TIME straight after the command, before any other client's
// command. Outside it commands are sent as before, with nothing added. The scope is an
// AsyncLocalStorage, so the lock protocols need no parameter for it and a watchdog started later
// (another async context) is not timed by accident.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { RedisClient } from './connection.js';

const collecting = new AsyncLocalStorage<number[]>();

/** `fn`'s value and the server time (epoch ms, to the µs) after each lock command it sent, in order; NaN where TIME failed. */
export async function withServerTimes<T>(fn: () => Promise<T>): Promise<{ readonly value: T; readonly times: readonly number[] }> {
  const times: number[] = [];
  const value = await collecting.run(times, fn);
  return { value, times };
}

/** TIME's reply `[seconds, microseconds]` as epoch ms; NaN for anything else. */
export function timeReplyMs(reply: unknown): number {
  if (!Array.isArray(reply) || reply.length !== 2) return Number.NaN;
  const [s, us] = reply.map((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN)) as [number, number];
  return s * 1000 + us / 1000;
}

/**
 * Sends one command: as `client.call` would, or, inside withServerTimes, pipelined with TIME
 * (whose time is recorded; a TIME an ACL denies records NaN and never fails the command).
 */
export async function sendLockCommand(client: RedisClient, command: string, args: readonly (string | number)[]): Promise<unknown> {
  const times = collecting.getStore();
  if (times === undefined) return client.call(command, ...args);
  const replies = await client.pipeline().call(command, ...args).call('time').exec();
  const [err, reply] = replies?.[0] ?? [new Error(`${command}: no reply`), undefined];
  const [timeErr, time] = replies?.[1] ?? [new Error('TIME: no reply'), undefined];
  times.push(timeErr ? Number.NaN : timeReplyMs(time));
  if (err) throw err;
  return reply;
}
