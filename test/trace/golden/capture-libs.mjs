// node-redlock (v5 beta: EVALSHA first, EVAL after NOSCRIPT) and redis-semaphore's mutex and semaphore.
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const Redis = require('ioredis');
const { default: Redlock } = await import('redlock');
const { Mutex, Semaphore } = require('redis-semaphore');
const port = Number(process.argv[2]);
const a = new Redis({ port }),
  b = new Redis({ port });
const redlock = new Redlock([a], { retryCount: 0 });
const l1 = await redlock.acquire(['nr:res'], 300);
await redlock.acquire(['nr:res'], 300).catch(() => {});
const l2 = await l1.extend(400);
await l2.release();
const l3 = await redlock.acquire(['nr:res'], 100);
await new Promise((r) => setTimeout(r, 150));
await l3.release().catch(() => {});
const m = new Mutex(a, 'rsm', { lockTimeout: 500, acquireAttemptsLimit: 1, refreshInterval: 0 });
await m.acquire();
await m.release();
const s1 = new Semaphore(a, 'rss', 2, { lockTimeout: 500, acquireAttemptsLimit: 1, refreshInterval: 0 });
const s2 = new Semaphore(b, 'rss', 2, { lockTimeout: 500, acquireAttemptsLimit: 1, refreshInterval: 0 });
await s1.acquire();
await s2.acquire();
await s1.release();
await s2.release();
a.disconnect();
b.disconnect();
