import { call } from './resp.js';

/**
 * The little of a Redis client the clock and stall faults need. An ioredis client fits (tests,
 * library callers); the verbs use respRunner, the supervisor's own deadline-bound RESP calls.
 */
export interface CommandRunner {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
}

/** One fresh loopback connection per command, with a deadline: a paused node must not hang a verb. */
export function respRunner(port: number, timeoutMs = 2000): CommandRunner {
  return { call: (command, ...args) => call(port, [command, ...args], timeoutMs) };
}
