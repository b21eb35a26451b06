// Issue 24, item 1: a terminal writes its own reports on stdin (the cursor position answer to
// ESC [ 6 n, device status, ...), and a user can type them too. ink's useInput threw on them
// (`input.startsWith` of undefined) inside its stdin listener, which ended `inspect --watch`,
// `ls --watch` and the REPL. Now every view ignores them and keeps taking keys.
import { render } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodeKey } from '../../src/core/key-press.js';
import { urlTarget } from '../../src/repl/target.js';
import type { InspectAction } from '../../src/ui/InspectApp.js';
import { InspectApp } from '../../src/ui/InspectApp.js';
import { createInspectStore } from '../../src/ui/inspect-store.js';
import type { LsAction } from '../../src/ui/LsApp.js';
import { LsApp } from '../../src/ui/LsApp.js';
import { createLsStore } from '../../src/ui/ls-store.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { mountRepl, unmountAll } from './repl-harness.js';

// The four of the issue, then other reports and keys no view acts on.
const REPORTS = ['\x1b[6n', '\x1b[5n', '\x1b[0n', '\x1b[1;5n', '\x1b[12;40R', '\x1b[?1;2c', '\x1b[I', '\x1b[O', '\x1b[200~', '\x1b[Z', '\x1b[1;5P', '\x1b[15;5~'];

let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

describe('the key decoder', () => {
  it.each(REPORTS.map((r) => [JSON.stringify(r), r]))('ignores %s', (_name, report) => {
    expect(decodeKey(report)).toBeUndefined();
  });

  it('names the keys the views use', () => {
    expect(decodeKey('q')).toEqual({ text: 'q', ctrl: false, meta: false });
    expect(decodeKey('\x03')).toEqual({ text: 'c', ctrl: true, meta: false });
    expect(decodeKey('\r')).toMatchObject({ name: 'return' });
    expect(decodeKey('\x7f')).toMatchObject({ name: 'backspace' });
    expect(decodeKey('\x1b[A')).toMatchObject({ name: 'up', ctrl: false });
    expect(decodeKey('\x1bOD')).toMatchObject({ name: 'left' });
    expect(decodeKey('\x1b[1;5C')).toMatchObject({ name: 'right', ctrl: true });
    expect(decodeKey('\x1b[3~')).toMatchObject({ name: 'delete' });
    expect(decodeKey('\x1b[4~')).toMatchObject({ name: 'end' });
    expect(decodeKey('\x1bq')).toEqual({ text: 'q', ctrl: false, meta: true });
    expect(decodeKey('orders k1')).toEqual({ text: 'orders k1', ctrl: false, meta: false });
  });
});

describe('live views given terminal reports on stdin', () => {
  it('inspect --watch ignores them and still quits on q', () => {
    const actions: InspectAction[] = [];
    const store = createInspectStore({ keys: ['orders'], target: '127.0.0.1:16379', intervalMs: 1000 });
    const view = render(<InspectApp store={store} onAction={(a) => actions.push(a)} />);
    unmount = view.unmount;
    for (const report of REPORTS) view.stdin.write(report);
    expect(actions).toEqual([]);
    view.stdin.write('q');
    expect(actions).toEqual(['quit']);
  });

  it('ls --watch ignores them and still quits on q', () => {
    const actions: LsAction[] = [];
    const store = createLsStore({ pattern: '*', target: '127.0.0.1:16379', intervalMs: 2000 });
    const view = render(<LsApp store={store} columns={100} rows={24} onAction={(a) => actions.push(a)} />);
    unmount = view.unmount;
    for (const report of REPORTS) view.stdin.write(report);
    expect(actions).toEqual([]);
    view.stdin.write('p');
    view.stdin.write('q');
    expect(actions).toEqual(['toggle-pause', 'quit']);
  });
});

describe('the REPL given terminal reports on stdin', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterEach(unmountAll);
  afterAll(async () => {
    await server?.stop();
  });

  it('keeps the session and the line being typed, with nothing of the reports in it', async () => {
    const r = await mountRepl(urlTarget(server.url));
    await r.promptIs('');
    r.type('inspect ');
    for (const report of REPORTS) r.type(report);
    r.type('k1');
    await r.promptIs('inspect k1');
    r.type('\r');
    await r.shows('exit 4');
    expect(r.session.state.ended).not.toBe(true);
  });
});
