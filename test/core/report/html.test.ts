import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { historySection } from '../../../src/core/report/from-history.js';
import { escapeHtml, reportHtml, scriptJson } from '../../../src/core/report/html.js';
import type { Report } from '../../../src/core/report/model.js';
import type { History } from '../../../src/core/scenario/history.js';

// The page is built from names anyone can put in Redis: none may become markup or end the data
// block, and the one inline script must be the one the page's Content-Security-Policy allows.

const HOSTILE = '</script><img src=x onerror=alert(1)><!--\u2028';

function hostileReport(): Report {
  const history: History = {
    clients: [HOSTILE],
    nodes: ['n1'],
    events: [
      { kind: 'op', t: 0, client: HOSTILE, op: 'acquire', phase: 'invoke', id: 1 },
      { kind: 'op', t: 5, client: HOSTILE, op: 'acquire', phase: 'ok', id: 1, leaseMs: 100, detail: HOSTILE },
      { kind: 'server', t: 6, node: 'n1', holders: [HOSTILE], ttlMs: 90 },
      { kind: 'note', t: 7, lane: 'scenario', text: HOSTILE },
    ],
  };
  const violations = [{ kind: 'stale-holder', from: 5, to: 9, clients: [HOSTILE], message: HOSTILE }] as const;
  return {
    title: HOSTILE,
    subtitle: HOSTILE,
    sections: [historySection(HOSTILE, history, violations, HOSTILE)],
    tables: [{ caption: HOSTILE, head: [HOSTILE], rows: [[HOSTILE]] }],
    notes: [HOSTILE],
  };
}

const dataBlock = (page: string): string => /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(page)![1]!;

describe('reportHtml', () => {
  it('keeps a name like </script><img onerror> text: no tag, no comment, the data block intact', () => {
    const page = reportHtml(hostileReport());
    expect(page).not.toContain('<img');
    expect(page).not.toContain('<!--');
    expect(page.match(/<\/script>/g)).toHaveLength(2);
    expect(dataBlock(page)).not.toContain('\u2028');
    const data = JSON.parse(dataBlock(page)) as { sections: { lanes: { n: string }[]; ev: unknown[][]; fi: unknown[][] }[] };
    expect(data.sections[0]!.lanes[0]!.n).toBe(HOSTILE);
    expect(data.sections[0]!.fi[0]![3]).toBe(HOSTILE);
    expect(page).toContain(escapeHtml(HOSTILE));
  });

  it('allows exactly its own inline script and style, by hash, and nothing from anywhere', () => {
    const page = reportHtml(hostileReport());
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page)![1]!;
    const script = /<script>(.*)<\/script>/s.exec(page)![1]!;
    const style = /<style>(.*?)<\/style>/s.exec(page)![1]!;
    const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    expect(csp).toContain(`script-src ${sha(script)}`);
    expect(csp).toContain(`style-src ${sha(style)}`);
    expect(csp).toMatch(/default-src 'none'/);
    expect(page).not.toMatch(/\b(src|href)="(https?:)?\/\//);
  });

  it('numbers events and findings across sections, for links that name one', () => {
    const one = hostileReport().sections[0]!;
    const page = reportHtml({ ...hostileReport(), sections: [one, one] });
    const data = JSON.parse(dataBlock(page)) as { sections: { firstEvent: number; firstFinding: number; ev: unknown[] }[] };
    expect(data.sections.map((s) => [s.firstEvent, s.firstFinding])).toEqual([
      [1, 1],
      [1 + data.sections[0]!.ev.length, 2],
    ]);
    expect(page).toContain('id="finding-2"');
  });
});

describe('scriptJson', () => {
  it('writes <, >, & and the line separators as \\u escapes and stays the same JSON', () => {
    const value = { a: '</script>&<!--\u2028\u2029' };
    const text = scriptJson(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});
