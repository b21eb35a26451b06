import { Box, Text } from 'ink';
import { useSyncExternalStore } from 'react';
import { eventLines, seconds, type EventTone } from '../core/scenario/timeline-events.js';
import { roundSpan } from '../core/scenario/timeline-raster.js';
import { kindsText } from '../core/scenario/timeline-text.js';
import { deriveLanes } from '../core/scenario/timeline.js';
import { OUTCOME_TEXT } from '../core/scenario/timing.js';
import { violationKinds } from '../core/scenario/verdict.js';
import { SCENARIO_REPAINT_MS, type LiveVariant, type ScenarioRunStore, type ScenarioScreen } from './scenario-run-store.js';
import { Scrollback } from './Scrollback.js';
import { Swimlane } from './Swimlane.js';
import { useTerminalSize } from './use-terminal-size.js';
import { useTick } from './use-tick.js';
import { VerdictColumns } from './VerdictColumns.js';

export interface ScenarioRunViewProps {
  readonly store: ScenarioRunStore;
  /** Terminal width (tests); by default the real one, followed on resize. */
  readonly columns?: number;
  /** How often the cursor moves while a variant runs (ms). */
  readonly tickMs?: number;
  /** Latest events shown in words under the live swimlane. */
  readonly logLines?: number;
}

const TONE: Readonly<Record<EventTone, { color?: string; dimColor?: boolean }>> = {
  op: {},
  failed: { color: 'red' },
  fault: { color: 'yellow' },
  server: { dimColor: true },
  note: { color: 'cyan' },
  end: { dimColor: true },
};

function VariantHeader({ variant, index, screen, width }: { readonly variant: LiveVariant; readonly index: number; readonly screen: ScenarioScreen; readonly width: number }) {
  const count = screen.variantCount ?? screen.variants.length;
  return (
    <Box width={width}>
      <Text wrap="truncate-end">
        <Text bold>variant {variant.variant}</Text>
        <Text dimColor>
          {' '}
          ({index + 1}/{Math.max(count, index + 1)})
        </Text>
        {'  '}
        {variant.description}
        <Text dimColor> · expect {kindsText(variant.expected)}</Text>
      </Text>
    </Box>
  );
}

/** A finished variant as it stays on screen: its whole swimlane with the violations, and one verdict line. */
function FinishedVariant({ variant, index, screen, width }: { readonly variant: LiveVariant; readonly index: number; readonly screen: ScenarioScreen; readonly width: number }) {
  const run = variant.result!;
  const lanes = deriveLanes(run.history, { violations: run.verdict.violations });
  return (
    <Box flexDirection="column" marginTop={1}>
      <VariantHeader variant={variant} index={index} screen={screen} width={width} />
      <Swimlane lanes={lanes} width={width} />
      <Box width={width}>
        <Text color={run.outcome === 'as-expected' ? 'green' : run.outcome === 'inconclusive' ? 'yellow' : 'red'} wrap="truncate-end">
          {OUTCOME_TEXT[run.outcome].mark} found {kindsText(violationKinds(run.verdict))}
          {run.outcome === 'as-expected' ? ', as expected' : run.outcome === 'inconclusive' ? `, inconclusive: ${run.timing.inconclusive ?? ''}` : `, expected ${kindsText(run.expected)}`}{' '}
          <Text dimColor>({seconds(run.durationMs)})</Text>
        </Text>
      </Box>
    </Box>
  );
}

function RunningVariant({ variant, index, screen, width, now, logLines }: { readonly variant: LiveVariant; readonly index: number; readonly screen: ScenarioScreen; readonly width: number; readonly now: number; readonly logLines: number }) {
  const history = { clients: variant.clients, nodes: variant.nodes, events: variant.events };
  const lastT = variant.events.reduce((max, e) => Math.max(max, e.t), 0);
  const at = Math.max(now, lastT);
  const lanes = deriveLanes(history, { now: at });
  // The axis covers the expected run, then grows in round steps, so it rescales rarely.
  const span = at <= (variant.expectedMs ?? 0) ? variant.expectedMs! : roundSpan(at);
  const log = eventLines(history).slice(-logLines);
  const laneWidth = Math.min(8, Math.max(1, ...log.map((l) => l.lane.length)));
  return (
    <Box flexDirection="column" marginTop={1}>
      <VariantHeader variant={variant} index={index} screen={screen} width={width} />
      <Swimlane lanes={lanes} width={width} spanMs={span} live />
      {log.map((l, i) => (
        <Box key={i} width={width}>
          <Text wrap="truncate-end" {...TONE[l.tone]}>
            {seconds(l.t).padStart(8)} {l.lane.slice(0, laneWidth).padEnd(laneWidth)} {l.text}
          </Text>
        </Box>
      ))}
    </Box>
  );
}

/** `scenario run <name>` on a terminal: each variant's swimlane grows live, then all verdicts side by side. */
export function ScenarioRunView({ store, columns, tickMs = SCENARIO_REPAINT_MS, logLines = 5 }: ScenarioRunViewProps) {
  const terminal = useTerminalSize();
  const width = Math.max(20, (columns ?? terminal.columns) - 1);
  const screen = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const current = screen.variants[screen.variants.length - 1];
  const running = current !== undefined && current.result === undefined;
  // The cursor reads the store's clock, so a new variant starts at 0.
  useTick(running, tickMs);
  const now = store.elapsed();
  return (
    <Box flexDirection="column">
      <PrintedAbove screen={screen} width={width} />
      {running && <RunningVariant variant={current} index={screen.variants.length - 1} screen={screen} width={width} now={now} logLines={logLines} />}
      {screen.finished && (
        <Box marginTop={1}>
          <VerdictColumns runs={finishedOf(screen).map((f) => f.variant.result!)} width={width} />
        </Box>
      )}
    </Box>
  );
}

const finishedOf = (screen: ScenarioScreen) =>
  screen.variants.flatMap((v, index) => (v.result ? [{ key: `${index}-${v.variant}`, variant: v, index }] : []));

type Above = { readonly key: 'title' } | ReturnType<typeof finishedOf>[number];
const aboveKey = (item: Above): string => item.key;

/** The title and the finished variants, printed once above the live part (they scroll away with the terminal). */
function PrintedAbove({ screen, width }: { readonly screen: ScenarioScreen; readonly width: number }) {
  return (
    <Scrollback items={[{ key: 'title' } as const, ...finishedOf(screen)]} keyOf={aboveKey}>
      {(item) =>
        'variant' in item ? (
          <FinishedVariant variant={item.variant} index={item.index} screen={screen} width={width} />
        ) : (
          <Box width={width}>
            <Text wrap="truncate-end">
              <Text bold>{screen.name}</Text> {screen.title}
            </Text>
          </Box>
        )
      }
    </Scrollback>
  );
}
