// A node-redlock holder in a process of its own, for `who` tests that kill it by pid: it takes
// `key` on 127.0.0.1:`port` with a fixed lease on a connection named `name`, prints
// {"value","addr"} once held, and never renews. It ends by itself after 60 s.
import { Redis } from 'ioredis';
import Redlock from 'redlock';

const [port, key, name, leaseMs] = process.argv.slice(2);
const client = new Redis({ port: Number(port), host: '127.0.0.1', connectionName: name });
const redlock = new Redlock([client], { retryCount: 0 });
const lock = await redlock.acquire([key], Number(leaseMs));
process.stdout.write(`${JSON.stringify({ value: lock.value, addr: `${client.stream.localAddress}:${client.stream.localPort}` })}\n`);
setTimeout(() => process.exit(0), 60_000);
