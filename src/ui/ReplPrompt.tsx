import { Box, Text } from 'ink';
import { formatDuration } from '../core/duration.js';
import type { LineState } from '../core/repl/line-editor.js';
import type { ReplScreen } from './repl-screen.js';

export interface ReplPromptProps {
  readonly screen: ReplScreen;
  readonly line: LineState;
  /** Completion candidates to show under the line (Tab found several). */
  readonly candidates?: readonly string[] | undefined;
  /** A one-off hint under the line (e.g. how to leave after Ctrl-C on an empty line). */
  readonly hint?: string | undefined;
  readonly now: number;
}

/** The line with a block cursor: the character under it in inverse, or a space at the end. */
function Edited({ line }: { readonly line: LineState }) {
  const before = line.text.slice(0, line.cursor);
  const under = line.text[line.cursor] ?? ' ';
  const after = line.text.slice(line.cursor + 1);
  return (
    <Text>
      {before}
      <Text inverse>{under}</Text>
      {after}
    </Text>
  );
}

/** The bottom lines: what is running, the prompt (or a question), and completion candidates. */
export function ReplPrompt({ screen, line, candidates, hint, now }: ReplPromptProps) {
  const running = screen.running;
  return (
    <Box flexDirection="column">
      {running && (
        <Text color={running.cancelling ? 'yellow' : 'cyan'} wrap="truncate-end">
          {running.cancelling
            ? `cancelling ${running.line}… Ctrl-C again stops waiting for it`
            : `running as ${running.client} for ${formatDuration(Math.max(0, now - running.since))}: ${running.line} · Ctrl-C cancels`}
          {screen.queued > 0 ? ` · ${screen.queued} line(s) typed ahead` : ''}
        </Text>
      )}
      {screen.stepping && (
        <Text color="cyan" wrap="truncate-end">
          step {screen.stepping.next}/{screen.stepping.total} of {screen.stepping.scenario} ({screen.stepping.variant}):{' '}
          {screen.stepping.waiting !== undefined ? `next ${screen.stepping.waiting.trim()} · Enter runs it · continue · Ctrl-C stops` : 'running…'}
        </Text>
      )}
      {screen.question !== undefined ? (
        <Text>
          <Text color="yellow">{screen.question} </Text>
          <Edited line={line} />
        </Text>
      ) : (
        <Text {...(running ? { dimColor: true } : {})}>
          <Text bold>{screen.client}</Text>
          <Text dimColor>@{screen.target}</Text>
          {'> '}
          <Edited line={line} />
        </Text>
      )}
      {candidates && candidates.length > 0 && (
        <Text dimColor wrap="truncate-end">
          {candidates.join('  ')}
        </Text>
      )}
      {hint && <Text dimColor>{hint}</Text>}
    </Box>
  );
}
