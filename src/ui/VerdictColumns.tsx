import { Box, Text } from 'ink';
import type { VariantRun } from '../core/scenario/run.js';
import { kindsText, windowText } from '../core/scenario/timeline-text.js';
import { violationKinds } from '../core/scenario/verdict.js';

export interface VerdictColumnsProps {
  readonly runs: readonly VariantRun[];
  readonly width: number;
}

// Below this a column cannot hold "expected mutual-exclusion" on one line: stack the variants.
const MIN_COLUMN = 30;

/** Every variant's verdict side by side: expected, found, ✓/✗ and each violation's message. */
export function VerdictColumns({ runs, width }: VerdictColumnsProps) {
  const stacked = runs.length > 1 && width < runs.length * MIN_COLUMN;
  const columnWidth = stacked ? Math.max(10, width - 1) : Math.max(10, Math.floor((width - 1) / Math.max(1, runs.length)));
  const matched = runs.filter((r) => r.matched).length;
  return (
    <Box flexDirection="column">
      <Box flexDirection={stacked ? 'column' : 'row'}>
        {runs.map((run) => (
          <Box key={run.variant} width={columnWidth} flexDirection="column" paddingRight={1} {...(stacked ? { marginBottom: 1 } : {})}>
            <Text bold wrap="truncate">
              {run.variant} <Text color={run.matched ? 'green' : 'red'}>{run.matched ? '✓' : '✗'}</Text>
            </Text>
            <Text>
              <Text dimColor>expected </Text>
              {kindsText(run.expected)}
            </Text>
            <Text>
              <Text dimColor>found    </Text>
              {kindsText(violationKinds(run.verdict))}
            </Text>
            <Text color={run.matched ? 'green' : 'red'}>{run.matched ? '✓ as expected' : '✗ not as expected'}</Text>
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
      <Text color={matched === runs.length ? 'green' : 'red'} bold>
        {matched === runs.length
          ? `${matched} of ${runs.length} variant${runs.length === 1 ? '' : 's'} as expected`
          : `${runs.length - matched} of ${runs.length} variant${runs.length === 1 ? '' : 's'} NOT as expected`}
      </Text>
    </Box>
  );
}
