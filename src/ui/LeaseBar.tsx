import { Text } from 'ink';

export interface LeaseBarProps {
  readonly leftMs: number;
  readonly leaseMs: number;
  readonly width?: number;
}

/** How much of the lease is left, as a bar that turns yellow under a third and red under a tenth. */
export function LeaseBar({ leftMs, leaseMs, width = 24 }: LeaseBarProps) {
  const ratio = leaseMs > 0 ? Math.min(1, Math.max(0, leftMs / leaseMs)) : 0;
  const filled = Math.round(ratio * width);
  const color = ratio < 0.1 ? 'red' : ratio < 1 / 3 ? 'yellow' : 'green';
  return (
    <Text>
      <Text color={color}>{'█'.repeat(filled)}</Text>
      <Text dimColor>{'░'.repeat(width - filled)}</Text>
    </Text>
  );
}
