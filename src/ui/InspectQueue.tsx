import { Box, Text } from 'ink';
import { formatDuration } from '../core/duration.js';
import { listeningText, QUEUE_COLUMNS } from '../core/inspect-text.js';
import type { QueueEntryView } from '../core/lock-view.js';
import { InspectRow, LABEL_WIDTH } from './InspectRow.js';
import { useAvailableColumns } from './use-terminal-size.js';
import { Kept } from './Kept.js';

export interface InspectQueueProps {
  readonly queue: readonly QueueEntryView[];
  /** Time since the snapshot: deadlines keep approaching between ticks. */
  readonly elapsedMs: number;
}

/**
 * "in 4.2 s", "overdue 1.1 s" (dropped by the next acquire attempt) or "none", as the one-shot
 * table says it; the view's warnings (overdue-waiter, no deadline) explain the last two.
 */
export function deadlineText(entry: QueueEntryView, elapsedMs: number): { text: string; overdue: boolean } {
  if (entry.deadlineInMs === null) return { text: 'none', overdue: true };
  const left = entry.deadlineInMs - elapsedMs;
  if (left < 0) return { text: `overdue ${formatDuration(-left)}`, overdue: true };
  return { text: `in ${formatDuration(left)}`, overdue: false };
}

const expectedWait = (entry: QueueEntryView, elapsedMs: number): string =>
  entry.expectedWaitMs === undefined ? '?' : formatDuration(Math.max(0, entry.expectedWaitMs - elapsedMs));

// Fixed widths for everything but the waiter, so the headings stay above their values while the
// deadline text changes width with the clock ("in 1 m 59 s" is wider than "in 59.9 s").
const WIDTH = { position: 4, deadline: 18, wait: 15, listening: 9 } as const;
/** What the waiter keeps before a column on the right gives way. */
const WAITER_MIN = 12;

/**
 * The optional columns that fit beside the label, the position, the deadline and a waiter of
 * WAITER_MIN: on a narrow terminal "listening" goes first, then "expected wait" (the one-shot
 * table and --json keep both), so no row runs past the edge.
 */
export function queueColumnsFor(columns: number): { readonly wait: boolean; readonly listening: boolean } {
  const room = columns - LABEL_WIDTH - WIDTH.position - WAITER_MIN - 2 - WIDTH.deadline;
  return { wait: room >= WIDTH.wait, listening: room >= WIDTH.wait + WIDTH.listening };
}

interface ColumnsProps {
  readonly cells: readonly [string, string, string, string, string];
  readonly deadline?: { overdue: boolean };
  readonly shown: ReturnType<typeof queueColumnsFor>;
}

function Columns({ cells, deadline, shown }: ColumnsProps) {
  const [position, waiter, deadlineText, wait, listening] = cells;
  const dim = deadline === undefined;
  return (
    <>
      <Box width={WIDTH.position} flexShrink={0}>
        <Text dimColor>{position}</Text>
      </Box>
      {/* One row at any width: the waiter gives way (cut in the middle), not the row's height. */}
      <Box flexGrow={1} flexShrink={1} marginRight={2}>
        <Text wrap="truncate-middle" dimColor={dim}>{waiter}</Text>
      </Box>
      <Box width={WIDTH.deadline} flexShrink={0}>
        <Kept {...(deadline?.overdue ? { color: 'yellow' } : { dimColor: true })}>{deadlineText}</Kept>
      </Box>
      {shown.wait && (
        <Box width={WIDTH.wait} flexShrink={0}>
          <Text dimColor={dim}>{wait}</Text>
        </Box>
      )}
      {shown.listening && (
        <Box width={WIDTH.listening} flexShrink={0}>
          <Text dimColor={dim}>{listening}</Text>
        </Box>
      )}
    </>
  );
}

/** The fair lock's wait queue, in order, under the one-shot table's headings, deadlines counting down. */
export function InspectQueue({ queue, elapsedMs }: InspectQueueProps) {
  const shown = queueColumnsFor(useAvailableColumns());
  if (queue.length === 0) return null;
  return (
    <Box flexDirection="column">
      <InspectRow label="queue">
        <Columns cells={QUEUE_COLUMNS} shown={shown} />
      </InspectRow>
      {queue.map((entry) => {
        const deadline = deadlineText(entry, elapsedMs);
        return (
          <InspectRow key={entry.owner}>
            <Columns cells={[`${entry.position + 1}.`, entry.owner, deadline.text, expectedWait(entry, elapsedMs), listeningText(entry)]} deadline={deadline} shown={shown} />
          </InspectRow>
        );
      })}
    </Box>
  );
}
