import { Box, Text } from 'ink';
import { formatDuration } from '../core/duration.js';
import type { ReaderView, TimeoutKeyView } from '../core/lock-view.js';
import { InspectRow } from './InspectRow.js';
import { LeaseBar } from './LeaseBar.js';

export interface InspectReadersProps {
  readonly readers: readonly ReaderView[];
  readonly orphans: readonly TimeoutKeyView[];
  readonly elapsedMs: number;
  readonly scaleMs: number;
}

const holds = (n: number): string => (n > 1 ? `  ${n} holds` : '');

/** `{orders}:<uuid>:1:rwlock_timeout:2` → `rwlock_timeout:2`: the owner is on the line above. */
const shortTimeoutKey = (key: string, owner: string): string => {
  const at = key.indexOf(`${owner}:`);
  return at >= 0 ? key.slice(at + owner.length + 1) : key;
};

function TimeoutKey({ name, ttlMs, elapsedMs, scaleMs }: { name: string; ttlMs: number; elapsedMs: number; scaleMs: number }) {
  const left = ttlMs < 0 ? undefined : Math.max(0, ttlMs - elapsedMs);
  return (
    <InspectRow>
      <Text dimColor>{'  '}{name}  </Text>
      {left === undefined ? (
        <Text color="red">no TTL</Text>
      ) : (
        <Text>
          <LeaseBar leftMs={left} leaseMs={Math.max(scaleMs, ttlMs)} width={12} /> {formatDuration(left)}
        </Text>
      )}
    </InspectRow>
  );
}

/** A read-write lock's readers with their hold counts and each `rwlock_timeout` key counting down. */
export function InspectReaders({ readers, orphans, elapsedMs, scaleMs }: InspectReadersProps) {
  return (
    <Box flexDirection="column">
      {readers.map((r, i) => (
        <Box key={r.owner} flexDirection="column">
          <InspectRow label={i === 0 ? 'readers' : ''}>
            <Text>
              {r.owner}
              {holds(r.count)}
            </Text>
            {r.zombie && <Text color="red">  zombie: no timeout key left</Text>}
          </InspectRow>
          {r.timeoutKeys.map((t) => (
            <TimeoutKey key={t.key} name={shortTimeoutKey(t.key, r.owner)} ttlMs={t.ttlMs} elapsedMs={elapsedMs} scaleMs={scaleMs} />
          ))}
        </Box>
      ))}
      {orphans.map((t, i) => (
        <Box key={t.key} flexDirection="column">
          <InspectRow label={i === 0 ? 'orphans' : ''}>
            <Text color="yellow">{t.key}</Text>
          </InspectRow>
          <TimeoutKey name="no reader field for this key" ttlMs={t.ttlMs} elapsedMs={elapsedMs} scaleMs={scaleMs} />
        </Box>
      ))}
    </Box>
  );
}
