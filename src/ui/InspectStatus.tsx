import { Box, Text } from 'ink';
import { formatDuration } from '../core/duration.js';
import { clockTime } from './clock-time.js';
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
    // Short enough for 80 columns; the error itself (long, from Redis) goes on its own truncated line.
    const what = screen.reconnecting ? `reconnecting to ${safeText(screen.reconnecting.target)}…` : '';
    return (
      <Box flexDirection="column">
        <Text color="yellow">
          {[what, retryIn].filter(Boolean).join(' ')} · {age} · q quit
        </Text>
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
    <Text dimColor>
      ● {screen.target} every {formatDuration(screen.intervalMs)}
      {late} · p pause · q quit
    </Text>
  );
}
