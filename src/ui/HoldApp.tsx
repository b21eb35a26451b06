import { Box, Text } from 'ink';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { HoldView } from './HoldView.js';
import type { HoldStore, OutputLine } from './hold-store.js';
import { Scrollback } from './Scrollback.js';
import { useTerminalSize } from './use-terminal-size.js';

export interface HoldAppProps {
  readonly store: HoldStore;
  /** Injected by tests; the countdown is drawn at clock(). */
  readonly clock?: () => number;
  readonly tickMs?: number;
}

const lineId = (line: OutputLine): number => line.id;

/** The live `hold` screen: the command's output scrolls above, the lock's view repaints below. */
export function HoldApp({ store, clock = Date.now, tickMs = 200 }: HoldAppProps) {
  const { state, output } = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const [now, setNow] = useState(clock);
  const { columns } = useTerminalSize();
  const ended = state.endedAt !== undefined;
  useEffect(() => {
    // The countdown is the only thing that moves between events; stop ticking once it is over.
    if (ended) return;
    const timer = setInterval(() => setNow(clock()), tickMs);
    return () => clearInterval(timer);
  }, [ended, clock, tickMs]);
  return (
    <Box flexDirection="column">
      <Scrollback items={output} keyOf={lineId}>
        {(line) => <Text {...(line.stream === 'stderr' ? { color: 'yellow' } : {})}>{line.text}</Text>}
      </Scrollback>
      <HoldView state={state} now={ended ? (state.endedAt ?? now) : now} columns={columns} />
    </Box>
  );
}
