// The floor `inspect <key>` is measured against (bench/inspect.ts): node and ioredis alone doing
// the same reads on one connection, named like ours, then INFO replication, and printing them.
//   node bench/bare-inspect.mjs <redis url> <key>
import { Redis } from 'ioredis';

const [url, key] = process.argv.slice(2);
const redis = new Redis(url, { connectionName: 'bare:inspect', maxRetriesPerRequest: 0 });
const tag = `{${key}}`;
const replies = await redis
  .pipeline()
  .type(key)
  .hlen(key)
  .hgetall(key)
  .type(`redisson_lock_queue:${tag}`)
  .type(`redisson_lock_timeout:${tag}`)
  .type(`redisson_lock_token:${tag}`)
  .pubsub('NUMSUB', `redisson_lock__channel:${tag}`, `redisson_rwlock:${tag}`)
  .pttl(key)
  .time()
  .exec();
const replication = await redis.info('replication');
console.log(JSON.stringify(replies), replication.length);
await redis.quit();
