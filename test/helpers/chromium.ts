import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

// A real headless Chromium (Debian's /usr/bin/chromium) driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: fd 3 carries commands in, fd 4 replies and events out, each
// message JSON ended by a NUL), so no WebSocket client or npm package is needed. One browser per
// test file; a throwaway profile; every wait bounded; stopped by its pid.

export const CHROMIUM = process.env.REDLOCK_TEST_CHROMIUM ?? '/usr/bin/chromium';

type Message = { id?: number; method?: string; params?: Record<string, unknown>; sessionId?: string; result?: unknown; error?: { message: string } };

export interface Page {
  readonly sessionId: string;
  /** Console errors, uncaught exceptions and error log entries (CSP violations among them). */
  readonly errors: string[];
  /** Every URL the page asked the network stack for. */
  readonly requests: string[];
  send<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** Evaluates an expression in the page and returns its (JSON) value. */
  evaluate<T>(expression: string): Promise<T>;
  close(): Promise<void>;
}

export interface Browser {
  readonly pid: number;
  newPage(width: number, height: number): Promise<Page>;
  stop(): Promise<void>;
}

const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([p, new Promise<T>((_r, reject) => setTimeout(() => reject(new Error(`chromium: ${what} took over ${ms} ms`)), ms).unref())]);

export async function startChromium(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'redlock-chromium-'));
  const args = ['--headless=new', '--remote-debugging-pipe', `--user-data-dir=${profile}`, '--no-first-run', '--no-default-browser-check', '--disable-gpu', '--disable-extensions', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--hide-scrollbars', '--mute-audio', '--font-render-hinting=none'];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  const child: ChildProcess = spawn(CHROMIUM, [...args, 'about:blank'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
  const input = child.stdio[3] as Writable;
  const output = child.stdio[4] as Readable;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const listeners = new Set<(m: Message) => void>();
  let buffer = '';
  output.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let end = buffer.indexOf('\0'); end >= 0; end = buffer.indexOf('\0')) {
      const message = JSON.parse(buffer.slice(0, end)) as Message;
      buffer = buffer.slice(end + 1);
      if (message.id !== undefined) {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) waiter?.reject(new Error(`chromium: ${message.error.message}`));
        else waiter?.resolve(message.result);
      } else for (const l of listeners) l(message);
    }
  });
  const send = <T>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> => {
    const id = nextId++;
    const reply = new Promise<T>((resolve, reject) => pending.set(id, { resolve: resolve as (v: unknown) => void, reject }));
    input.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    return withTimeout(reply, 20_000, method);
  };
  child.once('exit', () => {
    for (const w of pending.values()) w.reject(new Error('chromium exited'));
    pending.clear();
  });
  await send('Browser.getVersion');

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      await withTimeout(send('Browser.close'), 5000, 'Browser.close').catch(() => undefined);
      await withTimeout(exited, 5000, 'exit').catch(() => child.kill('SIGKILL'));
    }
    rmSync(profile, { recursive: true, force: true });
  };

  const newPage = async (width: number, height: number): Promise<Page> => {
    const { targetId } = await send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    const errors: string[] = [];
    const requests: string[] = [];
    const listener = (m: Message): void => {
      if (m.sessionId !== sessionId || !m.params) return;
      // The few fields read of these events (DevTools protocol).
      const p = m.params as {
        request?: { url: string };
        exceptionDetails?: { text: string; exception?: { description?: string } };
        type?: string;
        args?: unknown[];
        entry?: { level: string; text: string };
      };
      if (m.method === 'Network.requestWillBeSent') requests.push(String(p.request?.url));
      if (m.method === 'Runtime.exceptionThrown') errors.push(`exception: ${p.exceptionDetails?.exception?.description ?? p.exceptionDetails?.text}`);
      if (m.method === 'Runtime.consoleAPICalled' && (p.type === 'error' || p.type === 'assert')) errors.push(`console.${p.type}: ${JSON.stringify(p.args)}`);
      if (m.method === 'Log.entryAdded' && p.entry?.level === 'error') errors.push(`log: ${p.entry.text}`);
    };
    listeners.add(listener);
    const page: Page = {
      sessionId,
      errors,
      requests,
      send: (method, params) => send(method, params, sessionId),
      async evaluate<T>(expression: string): Promise<T> {
        type Reply = { result: { value: T }; exceptionDetails?: { text: string; exception?: { description?: string } } };
        const r = await send<Reply>('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId);
        if (r.exceptionDetails) throw new Error(`evaluate: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
        return r.result.value;
      },
      async close() {
        listeners.delete(listener);
        await send('Target.closeTarget', { targetId }).catch(() => undefined);
      },
    };
    for (const domain of ['Runtime', 'Log', 'Network', 'Page']) await page.send(`${domain}.enable`);
    await page.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
    return page;
  };

  return { pid: child.pid!, newPage, stop };
}

/** Navigates and resolves once `ready` (an expression) is true in the page; bounded. */
export async function open(page: Page, url: string, ready: string, timeoutMs = 15_000): Promise<void> {
  await page.send('Page.navigate', { url });
  const until = Date.now() + timeoutMs;
  while (!(await page.evaluate<boolean>(`Boolean(${ready})`).catch(() => false))) {
    if (Date.now() > until) throw new Error(`chromium: ${url} not ready (${ready}) within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
