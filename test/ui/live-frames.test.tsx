// The live views on ink's real renderer (a counting terminal, not the testing library's debug
// mode): a live part repainting many times (renewals, polls, key presses) draws within ink's frame
// limit, and every line printed above it reaches the terminal exactly once, in order. ink draws a
// frame at once, past the limit, whenever its <Static> re-renders: the views used to hand it a
// fresh array each render, so every countdown tick and key press was such a frame.
import { afterEach, describe, expect, it } from 'vitest';
import type { LockView } from '../../src/core/lock-view.js';
import { emptyPanel } from '../../src/core/repl/panel.js';
import { HoldApp } from '../../src/ui/HoldApp.js';
import { createHoldStore } from '../../src/ui/hold-store.js';
import { InspectApp } from '../../src/ui/InspectApp.js';
import { createInspectStore } from '../../src/ui/inspect-store.js';
import { mountLive, type LiveView } from '../../src/ui/mount-view.js';
import { ReplApp, type ReplController } from '../../src/ui/ReplApp.js';
import type { OutputLine, ReplScreen } from '../../src/ui/repl-screen.js';
import { Keyboard } from '../helpers/terminal.js';
import { CountingTerminal, nextTurn, SLOW_FPS } from './counting-terminal.js';

const OWNER = '6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f:1';
// The countdowns' own timer stays out of the way: the repaints counted are the ones sent.
const NO_TICKS = 3_600_000;

let view: LiveView | undefined;
afterEach(async () => {
  await view?.close();
  view = undefined;
});

/** Repaints `times` times, each its own commit, and returns how many frames were drawn meanwhile. */
async function framesDuring(term: CountingTerminal, times: number, repaint: (i: number) => void): Promise<number> {
  const before = term.frames;
  for (let i = 1; i <= times; i++) {
    repaint(i);
    await nextTurn();
  }
  return term.frames - before;
}

async function settle(term: CountingTerminal, check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check(), `never drawn; the terminal got:\n${term.text}`).toBe(true);
}

function mountHold() {
  const term = new CountingTerminal();
  const store = createHoldStore({
    key: 'orders',
    kind: 'reentrant',
    owner: OWNER,
    target: '127.0.0.1:16501',
    mode: 'watchdog',
  });
  view = mountLive(<HoldApp store={store} tickMs={NO_TICKS} />, { stdout: term, stderr: term }, { maxFps: SLOW_FPS });
  store.emit({ type: 'acquired', at: Date.now(), mode: 'watchdog', leaseMs: 30_000, renewEveryMs: 10_000, count: 1 });
  const renew = (i: number) => store.emit({ type: 'renewed', at: Date.now(), ttlMs: 30_000, renewals: i });
  return { term, store, renew };
}

describe('hold: a lease renewed 20 times', () => {
  it('draws at most one frame for 20 renewals (ink allows one per 10 s here)', async () => {
    const { term, store, renew } = mountHold();
    store.write('stdout', 'started\n');
    await settle(term, () => term.count('started') === 1);
    expect(await framesDuring(term, 20, renew)).toBeLessThanOrEqual(1);
  });

  it("prints each line of the command's output once and in order, between the renewals", async () => {
    const { term, store, renew } = mountHold();
    await framesDuring(term, 20, (i) => {
      renew(i);
      store.write(i % 2 ? 'stdout' : 'stderr', `output ${i}\n`);
    });
    await view?.close();
    const lines = Array.from({ length: 20 }, (_, i) => `output ${i + 1}`);
    expect(lines.map((l) => term.count(l))).toEqual(lines.map(() => 1));
    const at = lines.map((l) => term.text.indexOf(l));
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });
});

const held = (owner: string, readAt: number, ttlMs: number): LockView => ({
  key: 'orders',
  kind: 'reentrant',
  type: 'hash',
  ttlMs,
  holders: [{ owner, count: 1 }],
  waiters: 0,
  warnings: [],
  readAt,
});

function mountInspect() {
  const term = new CountingTerminal();
  const store = createInspectStore({ keys: ['orders'], target: '127.0.0.1:16379', intervalMs: 1000 });
  view = mountLive(
    <InspectApp store={store} tickMs={NO_TICKS} />,
    { stdout: term, stderr: term },
    { maxFps: SLOW_FPS },
  );
  // Each read finds the lease 100 ms shorter: the countdown on screen changes every time.
  const poll = (tick: number, owner: string) => {
    const at = Date.now();
    store.poll({ type: 'ok', at, tookMs: 1, tick, snapshot: [held(owner, at, 30_000 - tick * 100)] });
  };
  return { term, poll };
}

describe('inspect --watch: a key refreshed 20 times', () => {
  it('draws at most one frame for 20 reads that move only the countdown', async () => {
    const { term, poll } = mountInspect();
    poll(1, OWNER);
    await settle(term, () => /orders/.test(term.text));
    expect(await framesDuring(term, 20, (i) => poll(i + 1, OWNER))).toBeLessThanOrEqual(1);
  });

  it('logs each change of holder once, in order', async () => {
    const { term, poll } = mountInspect();
    const owner = (i: number) => `${OWNER.slice(0, -2)}:${i}`;
    poll(1, owner(0));
    await framesDuring(term, 20, (i) => poll(i + 1, owner(i)));
    await view?.close();
    // Each read logs the new holder's acquire; the lines carry the time, and the holder tells them apart.
    const acquired = term.lines().filter((l) => l.includes('acquired by'));
    expect(acquired.map((l) => l.replace(/^\S+ acquired by /, ''))).toEqual(
      Array.from({ length: 20 }, (_, i) => owner(i + 1)),
    );
  });
});

/** A REPL session's stand-in: each line submitted prints its echo and one result line. */
function fakeSession(): ReplController & { readonly lines: () => readonly OutputLine[] } {
  const listeners = new Set<() => void>();
  let screen: ReplScreen = {
    output: [],
    prompt: 'A@127.0.0.1:16379> ',
    client: 'A',
    clients: ['A', 'B'],
    target: '127.0.0.1:16379',
    queued: 0,
    panel: emptyPanel(1000),
    held: [],
    heldElsewhere: [],
    waiting: [],
    jobs: [],
    ended: false,
  };
  const print = (text: string, tone: OutputLine['tone']) => {
    screen = { ...screen, output: [...screen.output, { id: screen.output.length, text, tone }] };
  };
  return {
    subscribe: (listener) => (listeners.add(listener), () => void listeners.delete(listener)),
    getSnapshot: () => screen,
    submit: (line) => {
      print(`${screen.prompt}${line}`, 'echo');
      print(`did ${line}`, 'result');
      for (const listener of listeners) listener();
    },
    interrupt: () => false,
    eof: () => undefined,
    complete: () => [],
    history: [],
    lines: () => screen.output,
  };
}

function mountRepl() {
  const term = new CountingTerminal();
  const keyboard = new Keyboard();
  const session = fakeSession();
  const stdin = keyboard as unknown as NodeJS.ReadableStream;
  view = mountLive(
    <ReplApp session={session} tickMs={NO_TICKS} />,
    { stdout: term, stderr: term, stdin },
    { maxFps: SLOW_FPS },
  );
  return { term, keyboard, session };
}

describe('repl: typing and running commands', () => {
  it('draws at most one frame for 20 keys typed one by one', async () => {
    const { term, keyboard } = mountRepl();
    await settle(term, () => term.text.includes('A@127.0.0.1:16379>'));
    expect(await framesDuring(term, 20, (i) => keyboard.press(String.fromCharCode(96 + i)))).toBeLessThanOrEqual(1);
  });

  it('prints the echo and the result of each of 20 commands once, in order', async () => {
    const { term, keyboard, session } = mountRepl();
    await framesDuring(term, 20, (i) => keyboard.press(`cmd${i}\r`));
    await view?.close();
    const printed = session.lines().map((l) => l.text);
    expect(printed).toHaveLength(40);
    expect(printed.map((l) => term.count(l))).toEqual(printed.map(() => 1));
    const at = printed.map((l) => term.text.indexOf(l));
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });
});
