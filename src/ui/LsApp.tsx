import { Box, Text } from 'ink';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { formatDuration } from '../core/duration.js';
import { formatTable, lsRow, sortViews, type LsSort } from './ls-table.js';
import type { LsScreen, LsStore } from './ls-store.js';
import { useKeys } from './use-keys.js';
import { useTerminalSize } from './use-terminal-size.js';

/** What a key press asks the command to do: `interrupt` is Ctrl-C, which raw mode turns into a key. */
export type LsAction = 'toggle-pause' | 'quit' | 'interrupt';

export interface LsAppProps {
  readonly store: LsStore;
  readonly onAction?: ((action: LsAction) => void) | undefined;
  /** Terminal size (tests); by default the real one, followed on resize. */
  readonly columns?: number;
  readonly rows?: number;
  readonly clock?: () => number;
  readonly tickMs?: number;
}

// `q` quits as in inspect --watch, so the sort keys avoid it: t TTL, w waiting, k key.
const SORT_KEYS: Readonly<Record<string, LsSort>> = { t: 'ttl', w: 'waiting', k: 'key' };
const SORT_TEXT: Readonly<Record<LsSort, string>> = { ttl: 'TTL', waiting: 'waiting', key: 'key' };
const HELP = 'sort: t TTL · w waiting · k key   p pause · q quit';
/** Lines that are not table rows: header, "more" line, status, keys. */
const CHROME_LINES = 4;

function statusLine(screen: LsScreen, now: number, sort: LsSort): { text: string; color?: string } {
  const age = screen.readAt !== undefined ? `read ${formatDuration(Math.max(0, now - screen.readAt))} ago` : 'no scan yet';
  if (screen.pausedAt !== undefined) return { text: `❚❚ paused: nothing is scanned, TTLs are frozen (${age}) · p resumes`, color: 'yellow' };
  if (screen.retry) {
    const left = formatDuration(Math.max(0, screen.retry.at + screen.retry.retryInMs - now));
    return { text: `${screen.retry.error}: retrying in ${left} (${age})`, color: 'yellow' };
  }
  if (!screen.scan) return { text: `scanning ${screen.target} for ${screen.pattern}…` };
  const { views, scanned, limited } = screen.scan;
  const found = `${views.length}${limited ? '+' : ''} lock${views.length === 1 ? '' : 's'} in ${scanned.toLocaleString('en-US')} keys`;
  return { text: `● ${screen.target} ${screen.pattern}: ${found} · every ${formatDuration(screen.intervalMs)}, ${age} · by ${SORT_TEXT[sort]}` };
}

/** `ls --watch`: a top-like table of every lock, re-scanned on the poller's ticks. */
export function LsApp({ store, onAction, clock = Date.now, tickMs = 200, ...size }: LsAppProps) {
  const terminal = useTerminalSize();
  const columns = size.columns ?? terminal.columns;
  const rows = size.rows ?? terminal.rows;
  const screen = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const [sort, setSort] = useState<LsSort>('ttl');
  const [now, setNow] = useState(clock);
  const paused = screen.pausedAt !== undefined;
  useKeys((key) => {
    const sortBy = key.ctrl ? undefined : SORT_KEYS[key.text];
    if (key.ctrl && key.text === 'c') onAction?.('interrupt');
    else if (key.text === 'q' && !key.ctrl) onAction?.('quit');
    else if (key.text === 'p' && !key.ctrl) onAction?.('toggle-pause');
    else if (sortBy) setSort(sortBy);
  });
  useEffect(() => {
    if (paused) return;
    const timer = setInterval(() => setNow(clock()), tickMs);
    return () => clearInterval(timer);
  }, [paused, clock, tickMs]);
  const drawnAt = screen.pausedAt ?? now;
  const elapsed = screen.readAt === undefined ? 0 : Math.max(0, drawnAt - screen.readAt);
  const views = sortViews(screen.scan?.views ?? [], sort);
  const room = Math.max(1, rows - CHROME_LINES);
  const shown = views.length > room ? views.slice(0, room - 1) : views;
  const [header, ...lines] = formatTable(shown.map((v) => lsRow(v, elapsed)), columns);
  const status = statusLine(screen, drawnAt, sort);
  return (
    <Box flexDirection="column">
      <Text bold>{header}</Text>
      {lines.map((line, i) => (
        <Text key={shown[i]!.key} {...(shown[i]!.warnings.some((w) => w.severity === 'error') ? { color: 'red' } : {})}>
          {line}
        </Text>
      ))}
      {shown.length < views.length ? <Text dimColor>… {views.length - shown.length} more (sorted by {SORT_TEXT[sort]})</Text> : null}
      {screen.scan && views.length === 0 ? <Text dimColor>no locks match {screen.pattern}</Text> : null}
      <Text wrap="truncate-end" {...(status.color ? { color: status.color } : { dimColor: true })}>
        {status.text}
      </Text>
      <Text dimColor>{HELP}</Text>
    </Box>
  );
}
