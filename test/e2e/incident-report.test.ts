import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/core/trace/events.js';
import { eventJson, headerLine } from '../../src/core/trace/recording.js';
import { open, startChromium, type Browser, type Page } from '../helpers/chromium.js';
import { useRedisServer } from '../helpers/fixture.js';
import { rawClient } from '../helpers/lock-env.js';
import { NO_WRONG_VERDICT, runCli, tempStateEnv } from '../helpers/run-cli.js';

// The four `--html` pages (trace --from a recorded log, a live trace ended by Ctrl-C, a scenario
// run on a sandbox, a race on a real server), each opened in a real headless Chromium: no console
// error, no request but the file, lanes and findings in the DOM, a hover card on an event, links
// to a finding and an event, keys that zoom, and a print layout without the controls. Redis names
// that look like markup stay text. One browser for the whole file.
//
// REDLOCK_WRITE_SCREENS=1 also writes each screenshot to docs/screens/report-*.png (the guide's).

const fx = useRedisServer();
const env = tempStateEnv();
const dir = mkdtempSync(join(tmpdir(), 'redlock-report-'));
const HOSTILE = '</script><img src=x onerror=alert(1)>';
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
const READY = "document.documentElement.dataset.ready === 'true'";
let browser: Browser;

beforeAll(async () => {
  browser = await startChromium();
}, 30_000);
afterAll(async () => {
  await browser?.stop();
});

/** A `redis-cli monitor` log: two named clients taking `orders` in turn, then a lease that runs out under its holder on a hostile key. */
function monitorLog(): string {
  const stamp = (ms: number) => `1764064800.${String(ms * 1000).padStart(6, '0')}`;
  const quoted = RELEASE.replaceAll('"', '\\"');
  const [a, b] = ['[0 127.0.0.1:5001]', '[0 127.0.0.1:5002]'];
  const lines = ['OK', `${stamp(0)} ${a} "CLIENT" "SETNAME" "worker-a"`, `${stamp(1)} ${b} "CLIENT" "SETNAME" "<b>worker-b</b>"`];
  for (let i = 0; i < 5; i++) {
    const at = 10 + i * 20;
    lines.push(`${stamp(at)} ${a} "SET" "orders" "a${i}" "NX" "PX" "5000"`, `${stamp(at + 5)} ${b} "SET" "orders" "b${i}" "NX" "PX" "5000"`);
    lines.push(`${stamp(at + 10)} ${a} "EVAL" "${quoted}" "1" "orders" "a${i}"`, `${stamp(at + 10)} [0 lua] "get" "orders"`, `${stamp(at + 10)} [0 lua] "del" "orders"`);
  }
  lines.push(`${stamp(300)} ${a} "SET" "${HOSTILE}" "tokA" "NX" "PX" "150"`, `${stamp(600)} ${b} "SET" "${HOSTILE}" "tokB" "NX" "PX" "5000"`);
  lines.push(`${stamp(650)} ${a} "EVAL" "${quoted}" "1" "${HOSTILE}" "tokA"`, `${stamp(650)} [0 lua] "get" "${HOSTILE}"`);
  return `${lines.join('\n')}\n`;
}

const NODES = ['127.0.0.1:7001', '127.0.0.1:7002', '127.0.0.1:7003'];

/** A recording of `trace --nodes` on 3 Redlock nodes: A takes n1 and n2, n2 restarts empty, n3's clock steps, B takes n2 and n3. */
function redlockRecording(): string {
  const t0 = 1_764_064_800_000;
  const [n1, n2, n3] = NODES as [string, string, string];
  const ev = (ms: number, kind: TraceEvent['kind'], node: string, owner?: string, extra: Partial<TraceEvent> = {}): TraceEvent => ({
    kind,
    t: t0 + ms,
    lock: owner === undefined ? '*' : 'payments',
    node,
    ...(owner !== undefined ? { owner, library: 'token' as const, client: { addr: owner === 'tokA' ? '127.0.0.1:5001' : '127.0.0.1:5002', name: owner === 'tokA' ? 'worker-a' : 'worker-b' } } : {}),
    ...extra,
  });
  const take = (ms: number, node: string, owner: string) => ev(ms, 'acquired', node, owner, { leaseMs: 10_000, count: 1 });
  const events = [
    take(0, n1, 'tokA'),
    take(2, n2, 'tokA'),
    ev(100, 'blind', n2),
    ev(400, 'expired', n2, 'tokA', { leaseMs: 10_000 }),
    ev(401, 'unblind', n2),
    take(600, n2, 'tokB'),
    // n3's clock stepped 200 ms forward: the trace sees it on the first line after, B's vote, stamped that much ahead.
    ev(802, 'clock-step', n3, undefined, { stepMs: 200 }),
    take(802, n3, 'tokB'),
    ev(900, 'released', n1, 'tokA', { count: 0 }),
  ];
  return `${[headerLine({ source: 'redlock 3 nodes', startedAt: t0, nodes: NODES }), ...events.map(eventJson)].join('\n')}\n`;
}

interface Shown {
  readonly lanes: string[];
  readonly findings: number;
  readonly bands: number;
  readonly glyphs: number;
  readonly images: number;
}

/** Opens a page and checks what every report must have; returns the page for more checks. */
async function openReport(file: string, hash = ''): Promise<Page> {
  const page = await browser.newPage(1280, 820);
  await open(page, `file://${file}${hash}`, READY);
  return page;
}

async function shown(page: Page): Promise<Shown> {
  return page.evaluate<Shown>(`({
    lanes: [...document.querySelectorAll('.timeline .lane:not(.axis) .lane-name')].map((e) => e.textContent),
    findings: document.querySelectorAll('ol.findings li').length,
    bands: document.querySelectorAll('rect.finding').length,
    glyphs: document.querySelectorAll('rect[data-ev]').length,
    images: document.images.length,
  })`);
}

/** Moves the mouse to the middle of an element (an event's glyph); returns the hover card's text and the id of the glyph under the mouse. */
async function hover(page: Page, element: string): Promise<{ id: string; card: string }> {
  const at = await page.evaluate<{ x: number; y: number }>(`(() => { const r = ${element}.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`);
  const id = await page.evaluate<string>(`document.elementFromPoint(${at.x}, ${at.y}).getAttribute('data-ev')`);
  await page.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: at.x, y: at.y });
  const card = await page.evaluate<string>(`(() => { const t = document.getElementById('tip'); return t.hidden ? '' : t.innerText; })()`);
  return { id, card };
}

/** An expression for the first glyph drawn whose event says every one of `texts` (read from the page's data block). */
const glyphOf = (...texts: string[]) => `(() => {
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const says = new Map(data.sections.flatMap((s) => s.ev.map((e, i) => [String(s.firstEvent + i), e[3]])));
  return [...document.querySelectorAll('rect[data-ev]')].find((r) => ${JSON.stringify(texts)}.every((t) => says.get(r.getAttribute('data-ev')).includes(t)));
})()`;
/** The left edge of that glyph on the screen, px. */
const glyphX = (page: Page, ...texts: string[]) => page.evaluate<number>(`${glyphOf(...texts)}.getBoundingClientRect().x`);

async function screenshot(page: Page, name: string): Promise<void> {
  const { data } = await page.send<{ data: string }>('Page.captureScreenshot', { format: 'png' });
  const png = Buffer.from(data, 'base64');
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  writeFileSync(join(dir, `${name}.png`), png);
  if (process.env.REDLOCK_WRITE_SCREENS === '1') {
    mkdirSync('docs/screens', { recursive: true });
    writeFileSync(join('docs/screens', `${name}.png`), png);
  }
}

/** No console error, no exception, no request but the file itself. */
function expectQuiet(page: Page, file: string): void {
  expect(page.errors).toEqual([]);
  expect(page.requests.map((u) => u.replace(/#.*$/, ''))).toEqual(page.requests.map(() => `file://${file}`));
}

describe('--html', () => {
  it('trace --from: lanes, findings, hover card with server facts, links, zoom keys, print layout, and names that stay text', async () => {
    const log = join(dir, 'monitor.log');
    writeFileSync(log, monitorLog());
    const file = join(dir, 'trace.html');
    const r = await runCli(['trace', '--from', log, '--html', file], env);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/report: wrote .*trace\.html \(\d+ KB\)/);
    expect(readFileSync(file, 'utf8')).not.toContain(HOSTILE);

    const page = await openReport(file);
    const s = await shown(page);
    expect(s.lanes).toEqual(expect.arrayContaining(['worker-a', '<b>worker-b</b>', 'orders', HOSTILE]));
    expect(s.images).toBe(0);
    expect(await page.evaluate<string[]>(`[...document.querySelectorAll('ol.findings li b')].map((b) => b.textContent)`)).toEqual(['expired-while-held', 'overlap']);
    expect(s.bands).toBeGreaterThanOrEqual(2);

    const card = await hover(page, glyphOf('acquired  by tokB'));
    expect(card.card).toMatch(new RegExp(`^#${card.id}\\s`));
    for (const label of ['server time', 'client', 'owner', 'TTL (lease)', 'hold count']) expect(card.card).toContain(label);
    expect(card.card).toContain('2025-11-25 10:00:00.600');
    expect(card.card).toContain('tokB');
    await screenshot(page, 'report-trace-from');

    const before = await page.evaluate<string>(`document.querySelector('.window').textContent`);
    await page.send('Input.dispatchKeyEvent', { type: 'keyDown', key: '+', text: '+' });
    await page.send('Input.dispatchKeyEvent', { type: 'keyUp', key: '+' });
    await expect.poll(() => page.evaluate<string>(`document.querySelector('.window').textContent`), { timeout: 5000 }).not.toBe(before);

    await page.send('Emulation.setEmulatedMedia', { media: 'print' });
    expect(await page.evaluate<string>(`getComputedStyle(document.querySelector('.controls')).display`)).toBe('none');
    expect(await page.evaluate<string>(`getComputedStyle(document.querySelector('.lane')).breakInside`)).toBe('avoid');
    expectQuiet(page, file);
    await page.close();

    const linked = await openReport(file, '#finding-2');
    expect(await linked.evaluate<boolean>(`document.getElementById('finding-2').classList.contains('hl-row')`)).toBe(true);
    expect(await linked.evaluate<number>(`document.querySelectorAll('rect.finding.hl[data-f="2"]').length`)).toBeGreaterThan(0);
    await linked.close();
    const event = await openReport(file, '#event-3');
    expect(await event.evaluate<boolean>(`document.getElementById('event-3').classList.contains('hl-row')`)).toBe(true);
    expect(await event.evaluate<number>(`document.querySelectorAll('rect.ev.hl[data-ev="3"]').length`)).toBe(1);
    expectQuiet(event, file);
    await event.close();
  }, 60_000);

  it('trace --from a 3-node Redlock recording: a lane per node, node events hovered with their node, the overlap on its node', async () => {
    const recording = join(dir, 'redlock.ndjson');
    writeFileSync(recording, redlockRecording());
    const file = join(dir, 'redlock.html');
    const r = await runCli(['trace', '--from', recording, '--html', file], env);
    expect(r.code).toBe(7);

    const page = await openReport(file);
    const s = await shown(page);
    expect(s.lanes).toEqual(expect.arrayContaining(['worker-a', 'worker-b', ...NODES]));
    expect(await page.evaluate<string[]>(`[...document.querySelectorAll('.lane.node .lane-name')].map((e) => e.textContent)`)).toEqual(NODES);
    expect(await page.evaluate<number>(`document.querySelectorAll('.lane.node rect.fault-blind').length`)).toBe(1);
    expect(await page.evaluate<string>(`document.querySelector('ol.findings li').textContent`)).toContain(`${NODES[1]} counted for both`);
    const card = await hover(page, `document.querySelector('.lane.node rect[data-ev]')`);
    expect(card.card).toMatch(new RegExp(`^#${card.id}\\s`));
    expect(card.card).toContain('node');
    expect(card.card).toMatch(/127\.0\.0\.1:700[23]/);
    // B's votes on n2 (600 ms) and n3 (stamped 802 by n3's clock, 200 ms ahead since its step): drawn
    // 2 ms apart, as the quorum checker reads them, not 202; n1's release at 900 ms for the scale.
    const onN2 = await glyphX(page, 'acquired  by tokB', `@${NODES[1]}`);
    const onN3 = await glyphX(page, 'acquired  by tokB', `@${NODES[2]}`);
    const release = await glyphX(page, 'released  by tokA');
    expect((onN3 - onN2) / (release - onN2)).toBeLessThan(0.1);
    await screenshot(page, 'report-redlock');
    expectQuiet(page, file);
    await page.close();
  }, 60_000);

  it('a live trace ended by Ctrl-C still writes its page', async () => {
    const file = join(dir, 'live.html');
    const abort = new AbortController();
    let output = '';
    const running = runCli(['trace', '--url', fx.server.url, '--html', file], env, abort.signal, (t) => (output += t));
    const until = Date.now() + 15_000;
    while (!output.includes('trace: following') && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const [a, b] = [rawClient(fx.server), rawClient(fx.server)];
    try {
      await a.client('SETNAME', 'live-a');
      await b.client('SETNAME', 'live-b');
      await a.set('jobs', 'tokA', 'PX', 150, 'NX');
      await new Promise((r) => setTimeout(r, 300));
      await b.set('jobs', 'tokB', 'PX', 5000, 'NX');
      await a.eval(RELEASE, 1, 'jobs', 'tokA');
      await b.eval(RELEASE, 1, 'jobs', 'tokB');
      await a.set('live-marker', 'm', 'PX', 1000, 'NX');
      while (!output.includes('live-marker') && Date.now() < until + 10_000) await new Promise((r) => setTimeout(r, 20));
    } finally {
      a.disconnect();
      b.disconnect();
    }
    abort.abort();
    const r = await running;
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('report: wrote');

    const page = await openReport(file);
    const s = await shown(page);
    expect(s.lanes).toEqual(expect.arrayContaining(['live-a', 'live-b', 'jobs']));
    expect(s.findings).toBeGreaterThanOrEqual(1);
    expect(await page.evaluate<string>(`document.querySelector('.sub').textContent`)).toContain('ended by Ctrl-C');
    const card = await hover(page, glyphOf('jobs  acquired  by tokB'));
    expect(card.card).toMatch(new RegExp(`^#${card.id}\\s`));
    expect(card.card).toContain('live-b');
    await screenshot(page, 'report-trace-live');
    expectQuiet(page, file);
    await page.close();
  }, 60_000);

  it('scenario run: a section per variant with its findings', async () => {
    const file = join(dir, 'scenario.html');
    const r = await runCli(['scenario', 'run', 'gc-pause-no-fencing', '--html', file], env);
    expect(NO_WRONG_VERDICT).toContain(r.code);
    const page = await openReport(file);
    const s = await shown(page);
    expect(await page.evaluate<string[]>(`[...document.querySelectorAll('section.report-section h2')].map((h) => h.textContent)`)).toEqual(['variant unsafe', 'variant fixed']);
    expect(s.lanes).toEqual(expect.arrayContaining(['A', 'B', 'n1']));
    // The unsafe variant's verdict (when the run kept to its timetable) is in its findings.
    if (r.code === 0) expect(await page.evaluate<string>(`document.querySelector('[data-section="0"] ol.findings').textContent`)).toContain('stale-write');
    const card = await hover(page, glyphOf('paused'));
    expect(card.card).toMatch(new RegExp(`^#${card.id}\\s`));
    expect(card.card).toContain('run time');
    await screenshot(page, 'report-scenario');
    expectQuiet(page, file);
    await page.close();
  }, 120_000);

  it('race: lanes per client, the violations as findings, the figures as the summary', async () => {
    const file = join(dir, 'race.html');
    const argv = ['race', 'orders', '--url', fx.server.url, '--kind', 'token', '--clients', '3', '--duration', '1500ms', '--lease', '50ms', '--hold', '80ms', '--release', 'naive-del', '--no-renew', '--html', file, '--yes'];
    const r = await runCli(argv, env);
    expect([7, 8]).toContain(r.code);
    const page = await openReport(file);
    const s = await shown(page);
    expect(s.lanes).toEqual(expect.arrayContaining(['c1', 'c2', 'c3']));
    expect(s.findings).toBeGreaterThan(0);
    expect(await page.evaluate<string>(`document.querySelector('.summary').textContent`)).toContain('verdict');
    // Many events share a pixel at this zoom (one glyph each): any glyph of a client's lane.
    const card = await hover(page, `document.querySelector('.lane.client rect[data-ev]')`);
    expect(card.card).toMatch(new RegExp(`^#${card.id}\\s`));
    expect(card.card).toContain('client');
    await screenshot(page, 'report-race');
    expectQuiet(page, file);
    await page.close();
  }, 60_000);
});
