import type { Connection, RedisClient } from '../redis/connection.js';
import type { Gate } from './gate.js';

// ioredis command methods are lowercase (`get`, `call`, `evalsha`, and the scripts defined with
// defineCommand such as `lockAcquire`... which are camelCase, so they are listed by the caller);
// these lowercase methods are not commands and must keep their synchronous behaviour.
const NOT_COMMANDS = new Set(['connect', 'disconnect', 'quit', 'duplicate', 'pipeline', 'multi', 'on', 'once', 'off', 'emit', 'listeners']);

/**
 * The connection as a paused client sees it: a command is sent only while the client runs, and
 * its reply is handled only once the client runs again. Everything else (events, disconnect,
 * the subscriber connections made by duplicate()) goes to the real client untouched.
 */
export function gatedConnection(conn: Connection, gate: Gate, scriptNames: ReadonlySet<string>, onCommand?: (command: string) => () => void): Connection {
  const target = conn.client;
  const wrapped = new Map<PropertyKey, unknown>();
  const client = new Proxy(target, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== 'function') return value;
      const isCommand = typeof prop === 'string' && ((/^[a-z]+$/.test(prop) && !NOT_COMMANDS.has(prop)) || scriptNames.has(prop));
      if (!isCommand) return (value as (...a: unknown[]) => unknown).bind(obj);
      let fn = wrapped.get(prop);
      if (!fn) {
        fn = async (...args: unknown[]) => {
          await gate.wait();
          gate.check();
          const fresh = Reflect.get(obj, prop, obj) as (...a: unknown[]) => Promise<unknown>;
          // The round trip ends when the reply arrives, not when a paused client gets to handle it.
          const replied = onCommand?.(prop as string);
          const work = fresh.apply(obj, args);
          if (replied) void work.then(replied, replied);
          return gate.after(work);
        };
        wrapped.set(prop, fn);
      }
      return fn;
    },
  }) as RedisClient;
  return { ...conn, client };
}
