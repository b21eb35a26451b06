import { Text } from 'ink';
import { formatDuration } from '../core/duration.js';
import type { InspectScreen } from './inspect-store.js';

export interface InspectStatusProps {
  readonly screen: InspectScreen;
  readonly now: number;
}

const KEYS = 'p pause · q quit';

/** The line under the keys: live, paused, retrying or reconnecting, and how old the picture is. */
export function InspectStatus({ screen, now }: InspectStatusProps) {
  const age = screen.readAt !== undefined ? `last read ${formatDuration(Math.max(0, (screen.pausedAt ?? now) - screen.readAt))} ago` : 'no read yet';
  if (screen.pausedAt !== undefined) {
    return (
      <Text color="yellow">
        ❚❚ paused: nothing is read, countdowns are frozen ({age}) · p resumes · q quit
      </Text>
    );
  }
  const retryIn = screen.retry ? `retrying in ${formatDuration(Math.max(0, screen.retry.at + screen.retry.retryInMs - now))}` : '';
  if (screen.reconnecting) {
    return (
      <Text color="yellow">
        connection to {screen.reconnecting.target} lost: reconnecting…{retryIn && ` ${retryIn}`} ({age}) · q quit
      </Text>
    );
  }
  if (screen.retry) {
    return (
      <Text color="yellow">
        {screen.retry.error}: {retryIn} ({age}) · q quit
      </Text>
    );
  }
  if (screen.readAt === undefined) return <Text dimColor>reading {screen.target}… · q quit</Text>;
  return (
    <Text dimColor>
      ● {screen.target} every {formatDuration(screen.intervalMs)}, {age} · {KEYS}
    </Text>
  );
}
