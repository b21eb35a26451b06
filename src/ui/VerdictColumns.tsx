import { Box, Text } from 'ink';
import type { VariantRun } from '../core/scenario/run.js';
import { kindsText, windowText } from '../core/scenario/timeline-text.js';
import { OUTCOME_TEXT, type Outcome } from '../core/scenario/timing.js';
import { violationKinds } from '../core/scenario/verdict.js';

export interface VerdictColumnsProps {
  readonly runs: readonly VariantRun[];
  readonly width: number;
}

const OUTCOME_COLOR: Readonly<Record<Outcome, string>> = { 'as-expected': 'green', 'not-as-expected': 'red', inconclusive: 'yellow' };

// Below this a column cannot hold "expected mutual-exclusion" on one line: stack the variants.
const MIN_COLUMN = 30;

/** Every variant's verdict side by side: expected, found, ✓/✗ and each violation's message. */
export function VerdictColumns({ runs, width }: VerdictColumnsProps) {
  const stacked = runs.length > 1 && width < runs.length * MIN_COLUMN;
  const columnWidth = stacked ? Math.max(10, width - 1) : Math.max(10, Math.floor((width - 1) / Math.max(1, runs.length)));
  const matched = runs.filter((r) => r.outcome === 'as-expected').length;
  const wrong = runs.filter((r) => r.outcome === 'not-as-expected').length;
  const late = runs.length - matched - wrong;
  const plural = runs.length === 1 ? '' : 's';
  return (
    <Box flexDirection="column">
      <Box flexDirection={stacked ? 'column' : 'row'}>
        {runs.map((run) => (
          <Box key={run.variant} width={columnWidth} flexDirection="column" paddingRight={1} {...(stacked ? { marginBottom: 1 } : {})}>
            <Text bold wrap="truncate">
              {run.variant} <Text color={OUTCOME_COLOR[run.outcome]}>{OUTCOME_TEXT[run.outcome].mark}</Text>
            </Text>
            <Text>
              <Text dimColor>expected </Text>
              {kindsText(run.expected)}
            </Text>
            <Text>
              <Text dimColor>found    </Text>
              {kindsText(violationKinds(run.verdict))}
            </Text>
            <Text color={OUTCOME_COLOR[run.outcome]}>
              {OUTCOME_TEXT[run.outcome].mark} {OUTCOME_TEXT[run.outcome].words}
            </Text>
            {run.timing.inconclusive !== undefined ? <Text color="yellow">{run.timing.inconclusive}</Text> : null}
            {run.verdict.violations.map((v, i) => (
              <Text key={i}>
                <Text color="red" bold>
                  ! {v.kind}
                </Text>
                <Text dimColor> {windowText(v.from, v.to)}</Text> {v.message}
              </Text>
            ))}
          </Box>
        ))}
      </Box>
      <Text color={wrong > 0 ? 'red' : late > 0 ? 'yellow' : 'green'} bold>
        {wrong > 0
          ? `${wrong} of ${runs.length} variant${plural} NOT as expected`
          : late > 0
            ? `${late} of ${runs.length} variant${plural} inconclusive: the machine was too busy`
            : `${matched} of ${runs.length} variant${plural} as expected`}
      </Text>
    </Box>
  );
}
