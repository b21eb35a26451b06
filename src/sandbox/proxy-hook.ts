import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { controlSocketPath, PROXY_READY_LINE, proxyRequest, serveProxyControl } from './proxy-control.js';
import { ProxyHost } from './proxy-host.js';
import type { ProxyHook, ProxyRecord, ProxyTarget } from './types.js';

const START_TIMEOUT_MS = 10_000;

/**
 * The command that runs proxy-main: the compiled .js next to us, or, when we run from source
 * (tests, tsx), the .ts through tsx's loader, resolved from our own package.
 */
function proxyMainCommand(): string[] {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = fileURLToPath(new URL(`./proxy-main.${fromSource ? 'ts' : 'js'}`, import.meta.url));
  if (!fromSource) return [entry];
  const tsx = createRequire(import.meta.url).resolve('tsx');
  return ['--import', `file://${tsx}`, entry];
}

/** Starts the sandbox's proxy process and waits for its ready line (or its death). */
function spawnProxyProcess(dir: string): Promise<number> {
  const log = openSync(join(dir, 'proxy.log'), 'a');
  try {
    // Detached like the nodes: Ctrl-C reaches `up`, which stops it; `up` may exit and leave it running.
    const child = spawn(process.execPath, [...proxyMainCommand(), dir], { detached: true, stdio: ['ignore', 'pipe', log] });
    return new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => fail(`no ready line within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
      const fail = (why: string): void => {
        clearTimeout(timer);
        if (child.exitCode === null) child.kill('SIGKILL');
        reject(new Error(`the fault proxy for ${dir} did not start: ${why} (see ${join(dir, 'proxy.log')})`));
      };
      child.once('error', (err) => fail(err.message));
      child.once('exit', (code, signal) => fail(`exited with ${signal ?? `code ${code}`}`));
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (!out.includes(PROXY_READY_LINE)) return;
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.stdout!.destroy();
        child.unref();
        resolve(child.pid!);
      });
    });
  } finally {
    closeSync(log);
  }
}

async function addProxy(target: ProxyTarget): Promise<number> {
  const [status] = await proxyRequest(controlSocketPath(target.dir), { op: 'add', node: target.node, targetPort: target.port });
  return status!.port;
}

/**
 * A ProxyHook for startSandbox (`up --proxy`): a fault proxy in front of every redis node, steered
 * through controlSocketPath(dir) by the latency / partition / heal verbs.
 *
 * - `process` (default): one proxy process per sandbox, which outlives `up` and is killed by
 *   `down` through its recorded pid (after the supervisor checks its command line names the dir).
 * - `in-process`: the proxies live in this process and stop with the sandbox; cheaper for tests
 *   and library callers whose sandbox never outlives them.
 */
export function proxyHook(opts: { readonly mode?: 'process' | 'in-process' } = {}): ProxyHook {
  if (opts.mode === 'in-process') return inProcessHook();
  const processes = new Map<string, Promise<number>>();
  return {
    async start(target: ProxyTarget): Promise<ProxyRecord> {
      let pid = processes.get(target.dir);
      if (!pid) {
        pid = spawnProxyProcess(target.dir);
        processes.set(target.dir, pid);
        pid.catch(() => processes.delete(target.dir));
      }
      const running = await pid;
      return { port: await addProxy(target), pid: running };
    },
  };
}

function inProcessHook(): ProxyHook {
  const hosts = new Map<string, Promise<{ host: ProxyHost; close(): Promise<void> }>>();
  return {
    async start(target) {
      let entry = hosts.get(target.dir);
      if (!entry) {
        const host = new ProxyHost();
        entry = serveProxyControl(host, controlSocketPath(target.dir)).then((control) => ({ host, close: control.close }));
        hosts.set(target.dir, entry);
      }
      await entry;
      return { port: await addProxy(target) };
    },
    async stop(target) {
      const entry = await hosts.get(target.dir);
      if (!entry) return;
      await entry.host.handle({ op: 'remove', node: target.node });
      if (entry.host.size > 0) return;
      hosts.delete(target.dir);
      await entry.close();
    },
  };
}
