// ink's <Static> prints the items past the count it has already printed, whatever they are. The
// views' logs go through Scrollback, which hands it an item list that only grows: a line is
// printed once, however the list it is given is rebuilt, and a live part repainting beside it
// stays within ink's frame limit.
import { Text } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { createScenarioRunStore } from '../../src/ui/scenario-run-store.js';
import { ScenarioRunView } from '../../src/ui/ScenarioRunView.js';
import { Scrollback } from '../../src/ui/Scrollback.js';
import { pauseHistory, variantRun } from '../core/scenario/timeline-fixtures.js';

let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

interface Line {
  readonly id: number;
  readonly text: string;
}
const line = (id: number): Line => ({ id, text: `line ${id}` });

function Log({ items }: { readonly items: readonly Line[] }) {
  return (
    <Scrollback items={items} keyOf={(l) => l.id}>
      {(l) => <Text>{l.text}</Text>}
    </Scrollback>
  );
}

/** Each line of the frame with how often it appears, in the order first drawn. */
const tally = (frame: string): [string, number][] => {
  const counts = new Map<string, number>();
  for (const l of frame.split('\n').filter((l) => l.startsWith('line ') || l.startsWith('variant ')))
    counts.set(l, (counts.get(l) ?? 0) + 1);
  return [...counts];
};

describe('Scrollback', () => {
  it('prints each line once, in the order first seen, when the list is trimmed, reordered or rebuilt', () => {
    const view = render(<Log items={[line(1), line(2)]} />);
    unmount = view.unmount;
    // A list that lost its first line (a log kept to its last N), then one more.
    view.rerender(<Log items={[line(2)]} />);
    view.rerender(<Log items={[line(2), line(3)]} />);
    // Newest first, with a line never seen before.
    view.rerender(<Log items={[line(4), line(3), line(2), line(1)]} />);
    // Rebuilt copies of the same lines, as a view that spreads its store's array on every render.
    for (let i = 0; i < 20; i++) view.rerender(<Log items={[line(1), line(2), line(3), line(4)]} />);
    expect(tally(view.lastFrame() ?? '')).toEqual([
      ['line 1', 1],
      ['line 2', 1],
      ['line 3', 1],
      ['line 4', 1],
    ]);
  });
});

describe('scenario run: the finished variants printed above', () => {
  it('prints each finished variant once, also when they finish in another order than they started', async () => {
    const store = createScenarioRunStore({ name: 'gc-pause-stale-write', title: 'A long pause', variantCount: 2 });
    const view = render(<ScenarioRunView store={store} columns={100} tickMs={5} />);
    unmount = view.unmount;
    const history = pauseHistory();
    const start = (variant: string) =>
      store.startVariant({
        variant,
        description: `the ${variant} way`,
        expected: ['stale-write'],
        clients: ['A', 'B', 'C'],
        nodes: ['n1', 'n2', 'n3'],
      });
    const until = async (pattern: RegExp): Promise<void> => {
      const deadline = Date.now() + 3000;
      while (!pattern.test(view.lastFrame() ?? '') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    };
    start('first');
    start('second');
    store.finishVariant(variantRun('second', history, [], ['stale-write']));
    await until(/expected stale-write/);
    store.finishVariant(variantRun('first', history, [], ['stale-write']));
    store.finish();
    await until(/variants NOT as expected/);
    const headers = tally(view.lastFrame() ?? '').map(([l, n]) => [l.replace(/ {2}.*/, ''), n]);
    expect(headers).toEqual([
      ['variant second (2/2)', 1],
      ['variant first (1/2)', 1],
    ]);
  });
});
