import { Box, Text } from 'ink';
import { formatDuration } from '../core/duration.js';
import { clockTime } from './clock-time.js';
import { Kept } from './Kept.js';
import type { InspectScreen } from './inspect-store.js';
import { safeText } from '../core/terminal-text.js';

export interface InspectStatusProps {
  readonly screen: InspectScreen;
  readonly now: number;
}

/** The line under the keys: live, paused, retrying, reconnecting or stopped, and how old the picture is when that matters. */
export function InspectStatus({ screen, now }: InspectStatusProps) {
  const { readAt } = screen;
  const age = readAt !== undefined ? `last read ${formatDuration(Math.max(0, now - readAt))} ago` : 'nothing read yet';
  if (screen.endedAt !== undefined) {
    return <Text dimColor>stopped{readAt !== undefined ? `: last read at ${clockTime(readAt)}` : ''}</Text>;
  }
  if (screen.pausedAt !== undefined) {
    return <Text color="yellow">paused at {clockTime(screen.pausedAt)}: not reading, countdowns frozen · p resumes · q quit</Text>;
  }
  const retryIn = screen.retry ? `retrying in ${formatDuration(Math.max(0, screen.retry.at + screen.retry.retryInMs - now))}` : undefined;
  if (screen.reconnecting || screen.retry) {
    // One row: the target gives way (cut in the middle), never the countdowns; the error itself
    // (long, from Redis) goes on its own truncated line.
    return (
      <Box flexDirection="column">
        <Box>
          {screen.reconnecting && <Target color="yellow" before="reconnecting to " target={`${safeText(screen.reconnecting.target)}…`} />}
          <Kept color="yellow">
            {screen.reconnecting && retryIn ? ' ' : ''}
            {retryIn ?? ''} · {age} · q quit
          </Kept>
        </Box>
        {screen.retry && !screen.reconnecting && (
          <Text color="yellow" dimColor wrap="truncate-end">
            {safeText(screen.retry.error)}
          </Text>
        )}
      </Box>
    );
  }
  if (readAt === undefined) return <Text dimColor>reading {screen.target}… · q quit</Text>;
  // A read normally lands every interval; only say how old the picture is once it is overdue.
  const late = now - readAt > 2 * screen.intervalMs ? ` · ${age}` : '';
  return (
    <Box>
      <Target dimColor before="● " target={screen.target} />
      <Kept dimColor>
        {' '}every {formatDuration(screen.intervalMs)}
        {late} · p pause · q quit
      </Kept>
    </Box>
  );
}

/** The target in a status row: the part that is cut (in the middle) when the row would wrap. */
function Target({ before, target, color, dimColor = false }: { readonly before: string; readonly target: string; readonly color?: string; readonly dimColor?: boolean }) {
  return (
    <>
      <Kept {...(color ? { color } : {})} dimColor={dimColor}>
        {before}
      </Kept>
      <Text {...(color ? { color } : {})} dimColor={dimColor} wrap="truncate-middle">
        {target}
      </Text>
    </>
  );
}
