import { Box, Text } from 'ink';
import type { TraceLiveState } from '../core/trace/live.js';
import { Swimlane } from './Swimlane.js';

export interface TraceViewProps {
  readonly state: TraceLiveState;
  readonly what: string;
  readonly lagMs: number;
  readonly columns: number;
  /** The source's last status: "failover: now following ...", "reconnecting". */
  readonly status?: string;
}

/** Header, lanes of the last seconds (the scenario swimlane), findings pane, newest events. */
export function TraceView({ state, what, lagMs, columns, status }: TraceViewProps) {
  const width = Math.max(40, columns - 1);
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate">
        <Text bold>trace</Text> {what} · {state.events} events · lag {Math.round(lagMs)} ms ·{' '}
        {state.unsafe > 0 ? (
          <Text color="red" bold>
            {state.unsafe} unsafe
          </Text>
        ) : (
          <Text color="green">nothing unsafe</Text>
        )}
        {state.warnings > 0 ? <Text color="yellow"> · {state.warnings} warning{state.warnings === 1 ? '' : 's'}</Text> : null}
      </Text>
      {status !== undefined && (
        <Text color="yellow" wrap="truncate">
          {status}
        </Text>
      )}
      {state.lanes.clients.length > 0 ? <Swimlane lanes={state.lanes} width={width} spanMs={state.spanMs} live /> : <Text dimColor>waiting for lock operations…</Text>}
      {state.findingLines.length > 0 && (
        <Box flexDirection="column" marginTop={1}>
          {state.findingLines.map((line, i) => (
            <Text key={`f-${i}`} color={line.startsWith('~') ? 'yellow' : 'red'} wrap="truncate">
              {line}
            </Text>
          ))}
        </Box>
      )}
      <Box flexDirection="column" marginTop={1}>
        {state.eventLines.map((line, i) => (
          <Text key={`e-${i}`} dimColor wrap="truncate">
            {line}
          </Text>
        ))}
      </Box>
    </Box>
  );
}
