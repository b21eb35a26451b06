import { Box, Text } from 'ink';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { clockTime } from './clock-time.js';
import type { InspectLogLine, InspectStore, LogTone } from './inspect-store.js';
import { InspectKey } from './InspectKey.js';
import { InspectStatus } from './InspectStatus.js';
import { safeText } from '../core/terminal-text.js';
import { Scrollback } from './Scrollback.js';
import { useKeys } from './use-keys.js';

/** What a key press asks the command to do: `interrupt` is Ctrl-C, which raw mode turns into a key. */
export type InspectAction = 'toggle-pause' | 'quit' | 'interrupt';

export interface InspectAppProps {
  readonly store: InspectStore;
  readonly onAction?: ((action: InspectAction) => void) | undefined;
  /** Injected by tests; countdowns are drawn at clock(). */
  readonly clock?: () => number;
  readonly tickMs?: number;
}

const TONE_COLOR: Record<LogTone, string | undefined> = { good: 'green', notice: 'yellow', bad: 'red', plain: undefined };
const toneProps = (tone: LogTone): { color?: string } => {
  const color = TONE_COLOR[tone];
  return color ? { color } : {};
};

const lineId = (line: InspectLogLine): number => line.id;

/** `inspect --watch`: derived events scroll above, every watched key repaints below with its countdowns. */
export function InspectApp({ store, onAction, clock = Date.now, tickMs = 200 }: InspectAppProps) {
  const screen = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const [now, setNow] = useState(clock);
  const frozenAt = screen.endedAt ?? screen.pausedAt;
  useKeys((key) => {
    if (key.ctrl && key.text === 'c') onAction?.('interrupt');
    else if (key.text === 'q' && !key.ctrl) onAction?.('quit');
    else if (key.text === 'p' && !key.ctrl) onAction?.('toggle-pause');
  });
  useEffect(() => {
    // Nothing moves while paused (the picture stays as it was when the user asked to look at
    // it) or once the watch has ended.
    if (frozenAt !== undefined) return;
    const timer = setInterval(() => setNow(clock()), tickMs);
    return () => clearInterval(timer);
  }, [frozenAt, clock, tickMs]);
  const drawnAt = frozenAt ?? now;
  const elapsedMs = screen.readAt === undefined ? 0 : Math.max(0, drawnAt - screen.readAt);
  const several = screen.keys.length > 1;
  return (
    <Box flexDirection="column">
      <Scrollback items={screen.log} keyOf={lineId}>
        {(line) => (
          <Text {...toneProps(line.tone)}>
            <Text dimColor>{clockTime(line.at)} </Text>
            {several && line.key !== undefined ? <Text bold>{safeText(line.key)} </Text> : null}
            {safeText(line.text)}
          </Text>
        )}
      </Scrollback>
      {(screen.views ?? []).map((view) => (
        <InspectKey key={view.key} view={view} scaleMs={screen.scales[view.key]} elapsedMs={elapsedMs} />
      ))}
      <InspectStatus screen={screen} now={drawnAt} />
    </Box>
  );
}
