// A paced (or all-out) load of token-lock operations on one redis-server, in its own process so
// it shares no event loop with what is measured: CONNECTIONS connections, each sending batches of
// SET NX PX + compare-and-delete EVALSHA pairs on its own keys (bench/trace.ts, bench/export.ts).
import { spawn } from 'node:child_process';

// The load: CONNECTIONS connections, each sending batches of acquire + release pairs on its own
// keys; paced to `rate` lock operations per second (0: as fast as the server answers).
const LOAD = `
import { Redis } from 'ioredis';
const [port, rate, seconds, conns, keys] = process.argv.slice(1).map(Number);
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
const BATCH = 25;
let ops = 0;
const until = Date.now() + seconds * 1000;
const clients = Array.from({ length: conns }, () => new Redis({ port, host: '127.0.0.1' }));
const sha = await clients[0].script('LOAD', RELEASE);
const timer = setInterval(() => process.stdout.write(JSON.stringify({ ops }) + '\\n'), 1000);
await Promise.all(clients.map(async (c, ci) => {
  const perConn = rate / conns;
  const start = Date.now();
  let sent = 0;
  for (let n = 0; Date.now() < until; n++) {
    const p = c.pipeline();
    for (let i = 0; i < BATCH; i++) {
      const key = 'bench:trace:' + ((ci * BATCH + i) % keys);
      const token = ci + '-' + n + '-' + i;
      p.set(key, token, 'PX', 10000, 'NX');
      p.evalsha(sha, 1, key, token);
    }
    await p.exec();
    ops += BATCH * 2;
    sent += BATCH * 2;
    if (rate > 0) {
      const due = start + (sent / perConn) * 1000;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  }
}));
clearInterval(timer);
process.stdout.write(JSON.stringify({ ops, done: true }) + '\\n');
for (const c of clients) c.disconnect();
`;

/** Runs the load; resolves with the lock operations it completed and its per-second counts. */
export function lockLoad(port: number, o: { readonly rate: number; readonly seconds: number; readonly connections: number; readonly keys: number }): Promise<{ ops: number; perSecond: number[] }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', LOAD, String(port), String(o.rate), String(o.seconds), String(o.connections), String(o.keys)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { ops: number; done?: boolean });
      const last = lines.at(-1);
      if (code !== 0 || !last?.done) return reject(new Error(`load exited ${code}`));
      const perSecond = lines.slice(0, -1).map((l, i, all) => l.ops - (all[i - 1]?.ops ?? 0));
      resolve({ ops: last.ops, perSecond });
    });
  });
}

