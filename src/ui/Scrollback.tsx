import { Static } from 'ink';
import { Fragment, memo, type ReactNode, useRef } from 'react';

export interface ScrollbackProps<T> {
  /** The lines this render knows of, in any shape: rebuilt, trimmed or reordered, they are never printed twice. */
  readonly items: readonly T[];
  /** What makes a line itself for the life of the view (its id). */
  readonly keyOf: (item: T) => string | number;
  readonly children: (item: T) => ReactNode;
}

interface Printed<T> {
  /** The last `items` seen: a store that added nothing hands the same array back. */
  input: readonly T[] | undefined;
  seen: Set<string | number>;
  lines: T[];
}

/**
 * The lines handed to <Static> so far: grows only, and keeps its identity until a line is new.
 * ink's Static remembers how many items it has printed, not which: an item list that loses or
 * reorders lines would make it print some again and skip others, so lines are matched by key.
 */
function usePrinted<T>(items: readonly T[], keyOf: (item: T) => string | number): T[] {
  const printed = useRef<Printed<T>>({ input: undefined, seen: new Set(), lines: [] }).current;
  if (items === printed.input) return printed.lines;
  printed.input = items;
  const fresh = items.filter((item) => !printed.seen.has(keyOf(item)));
  if (fresh.length === 0) return printed.lines;
  for (const item of fresh) printed.seen.add(keyOf(item));
  printed.lines = [...printed.lines, ...fresh];
  return printed.lines;
}

interface PrintOnceProps {
  /** Never changed in place: a new line is a new array (Static's own memo compares identity). */
  readonly lines: unknown[];
  readonly render: (item: unknown) => ReactNode;
}

/**
 * <Static> re-rendered only when it has lines to add: ink draws a frame at once, past its frame
 * limit, whenever the Static box re-renders, so a parent repainting its live part (a countdown
 * tick, a key press) would otherwise bypass the limit every time.
 */
const PrintOnce = memo(
  function PrintOnce({ lines, render }: PrintOnceProps) {
    return <Static items={lines}>{render}</Static>;
  },
  (before, after) => before.lines === after.lines,
);

/**
 * A log that scrolls above a live view (ink's <Static>): each line printed once, in the order its
 * key was first seen, however the caller rebuilds the list between renders.
 */
export function Scrollback<T>({ items, keyOf, children }: ScrollbackProps<T>) {
  const lines = usePrinted(items, keyOf);
  const render = (item: unknown): ReactNode => <Fragment key={keyOf(item as T)}>{children(item as T)}</Fragment>;
  return <PrintOnce lines={lines} render={render} />;
}
