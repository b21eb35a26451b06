import { Box, Text } from 'ink';
import { formatDuration } from '../core/duration.js';
import type { QueueEntryView } from '../core/lock-view.js';
import { InspectRow } from './InspectRow.js';
import { Kept } from './Kept.js';

export interface InspectQueueProps {
  readonly queue: readonly QueueEntryView[];
  /** Time since the snapshot: deadlines keep approaching between ticks. */
  readonly elapsedMs: number;
}

/** "in 4.2 s" or "overdue 1.1 s": an overdue waiter is dropped by the next acquire attempt. */
export function deadlineText(entry: QueueEntryView, elapsedMs: number): { text: string; overdue: boolean } {
  if (entry.deadlineInMs === null) return { text: 'no deadline (missing from the timeout set)', overdue: true };
  const left = entry.deadlineInMs - elapsedMs;
  if (left < 0) return { text: `overdue ${formatDuration(-left)}: will be purged`, overdue: true };
  const wait = entry.expectedWaitMs !== undefined && entry.position > 0 ? ` · turn in ~${formatDuration(entry.expectedWaitMs)}` : '';
  return { text: `in ${formatDuration(left)}${wait}`, overdue: false };
}

/** The fair lock's wait queue, in order, each waiter with its deadline counting down. */
export function InspectQueue({ queue, elapsedMs }: InspectQueueProps) {
  if (queue.length === 0) return null;
  return (
    <Box flexDirection="column">
      {queue.map((entry, i) => {
        const deadline = deadlineText(entry, elapsedMs);
        return (
          <InspectRow key={entry.owner} label={i === 0 ? 'queue' : ''}>
            <Box width={4} flexShrink={0}>
              <Text dimColor>{entry.position + 1}.</Text>
            </Box>
            {/* One row at any width: the deadline moves with the clock ("in 1 m 59 s" is wider than
                "in 59.9 s"), so the owner gives way (cut in the middle), not the row's height. */}
            <Box marginRight={2}>
              <Text wrap="truncate-middle">{entry.owner}</Text>
            </Box>
            <Kept {...(deadline.overdue ? { color: 'yellow' } : { dimColor: true })}>{deadline.text}</Kept>
          </InspectRow>
        );
      })}
    </Box>
  );
}
