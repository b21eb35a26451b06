import { Box, Text } from 'ink';
import { useSyncExternalStore } from 'react';
import { formatDuration } from '../core/duration.js';
import { allMatched } from '../core/scenario/run.js';
import { rowPassed, summaryTable, type SummaryRow } from '../core/scenario/scenario-summary.js';
import { kindsText } from '../core/scenario/timeline-text.js';
import { violationKinds } from '../core/scenario/verdict.js';
import type { ScenarioAllStore, ScenarioProgress } from './scenario-all-store.js';
import { useTerminalSize } from './use-terminal-size.js';
import { useTick } from './use-tick.js';

export interface ScenarioAllViewProps {
  readonly store: ScenarioAllStore;
  /** Terminal width (tests); by default the real one, followed on resize. */
  readonly columns?: number;
  readonly tickMs?: number;
}

function progressLine(p: ScenarioProgress, now: number): { mark: string; text: string; color?: string; dimColor?: boolean } {
  switch (p.status) {
    case 'pending':
      return { mark: '○', text: 'pending', dimColor: true };
    case 'running': {
      const of = p.variantIndex !== undefined && p.variantCount !== undefined ? ` (${p.variantIndex + 1}/${p.variantCount})` : '';
      const what = p.variant !== undefined ? `running variant ${p.variant}${of}` : 'starting';
      return { mark: '●', text: `${what}  ${formatDuration(Math.max(0, now - p.startedAt))}`, color: 'yellow' };
    }
    case 'done': {
      if (allMatched(p.run)) return { mark: '✓', text: `done in ${formatDuration(p.durationMs)}`, color: 'green' };
      // Say which variant went wrong right away: the table comes only at the end.
      const wrong = p.run.variants.filter((v) => v.outcome !== 'as-expected').map((v) => (v.outcome === 'inconclusive' ? `${v.variant} inconclusive` : `${v.variant} found ${kindsText(violationKinds(v.verdict))}, expected ${kindsText(v.expected)}`));
      return { mark: '✗', text: `done in ${formatDuration(p.durationMs)}: ${wrong.join('; ')}`, color: 'red' };
    }
    case 'error':
      return { mark: '✗', text: `error: ${p.error}`, color: 'red' };
  }
}

function summaryRow(p: ScenarioProgress): SummaryRow {
  if (p.status === 'done') return { name: p.name, variants: p.run.variants, durationMs: p.durationMs };
  if (p.status === 'error') return { name: p.name, error: p.error, durationMs: p.durationMs };
  return { name: p.name };
}

/** `scenario run --all`: a progress line per scenario, then a summary table once all have run. */
export function ScenarioAllView({ store, columns, tickMs = 100 }: ScenarioAllViewProps) {
  const terminal = useTerminalSize();
  const width = Math.max(20, (columns ?? terminal.columns) - 1);
  const screen = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const running = screen.scenarios.some((s) => s.status === 'running');
  // The running scenarios' elapsed time moves with the tick.
  useTick(running, tickMs);
  const now = store.now();

  const nameWidth = Math.min(Math.max(...screen.scenarios.map((s) => s.name.length), 8), Math.floor(width / 2));
  const rows = screen.scenarios.map(summaryRow);
  const [header, ...table] = screen.finished ? summaryTable(rows, width) : [];
  return (
    <Box flexDirection="column">
      {screen.scenarios.map((s) => {
        const line = progressLine(s, now);
        const name = s.name.length > nameWidth ? `${s.name.slice(0, nameWidth - 1)}…` : s.name.padEnd(nameWidth);
        return (
          <Box key={s.name} width={width}>
            <Text wrap="truncate-end">
              <Text {...(line.color ? { color: line.color } : {})}>{line.mark}</Text> <Text bold={s.status === 'running'}>{name}</Text>{' '}
              <Text {...(line.color ? { color: line.color } : {})} dimColor={line.dimColor === true}>
                {line.text}
              </Text>
            </Text>
          </Box>
        );
      })}
      {header !== undefined && (
        <Box flexDirection="column" marginTop={1}>
          <Text bold>{header}</Text>
          {table.map((line, i) => {
            const row = rows[i];
            const color = row === undefined ? (rows.every(rowPassed) ? 'green' : 'red') : rowPassed(row) ? undefined : 'red';
            return (
              <Text key={i} {...(color ? { color } : {})} bold={row === undefined}>
                {line}
              </Text>
            );
          })}
        </Box>
      )}
    </Box>
  );
}
