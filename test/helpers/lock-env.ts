import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { Redis } from 'ioredis';
import { openLockEnv, type OpenLockEnv } from '../../src/locks/env.js';
import type { PubSubMode } from '../../src/locks/types.js';
import type { RedisServer } from './redis-server.js';

/** A lock environment on a test server (long-lived mode, like hold and the REPL). */
export function testEnv(server: Pick<RedisServer, 'url'>, pubsub: PubSubMode = 'plain'): Promise<OpenLockEnv> {
  return openLockEnv(parseEndpointUrl(server.url), { mode: 'long-lived', name: 'redlock-cli:test', pubsub });
}

/** A plain ioredis client for asserting raw state (never used by the code under test). */
export function rawClient(server: Pick<RedisServer, 'port'>): Redis {
  return new Redis({ port: server.port, host: '127.0.0.1', lazyConnect: false, maxRetriesPerRequest: 1 });
}

/** Collects messages published on a channel, to assert what a release woke. */
export async function recordChannel(server: Pick<RedisServer, 'port'>, pattern: string) {
  const sub = rawClient(server);
  const messages: { channel: string; message: string; at: number }[] = [];
  sub.on('pmessage', (_p: string, channel: string, message: string) => messages.push({ channel, message, at: Date.now() }));
  await sub.psubscribe(pattern);
  return { messages, close: () => void sub.disconnect() };
}

export const owner = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}:1`;
