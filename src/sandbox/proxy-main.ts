// Entry point of a sandbox's proxy process: `node proxy-main.js <sandbox dir>`. It hosts the fault
// proxy of every node of that sandbox and outlives the `up` that started it, steered through the
// control socket. The sandbox dir in its command line is what `down` checks before killing it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { controlSocketPath, PROXY_READY_LINE, serveProxyControl } from './proxy-control.js';
import { ProxyHost } from './proxy-host.js';

async function main(dir: string): Promise<void> {
  const host = new ProxyHost();
  const control = await serveProxyControl(host, controlSocketPath(dir));
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    clearInterval(watchdog);
    await Promise.all([control.close(), host.close()]);
    process.exit(0);
  };
  // If whoever started us died without `down` (a crashed test run), the sandbox dir goes away with
  // it (or is cleaned as stale later): do not outlive it.
  const watchdog = setInterval(() => {
    if (!existsSync(join(dir, 'sandbox.json'))) void stop();
  }, 1000);
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
  process.stdout.write(`${PROXY_READY_LINE}\n`);
}

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: proxy-main <sandbox dir>\n');
  process.exit(2);
}
main(dir).catch((err: unknown) => {
  process.stderr.write(`redlock-cli proxy: ${(err as Error).message}\n`);
  process.exit(1);
});
