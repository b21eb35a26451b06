import { Box, Text } from 'ink';
import { formatDuration } from '../core/duration.js';
import type { LockView, LockWarning, PermitView } from '../core/lock-view.js';
import { InspectQueue } from './InspectQueue.js';
import { Kept } from './Kept.js';
import { InspectReaders } from './InspectReaders.js';
import { InspectRow, LABEL_WIDTH } from './InspectRow.js';
import { useAvailableColumns } from './use-terminal-size.js';
import { displayWidth } from '../core/text-layout.js';
import { LeaseBar } from './LeaseBar.js';
import { safeStrings } from '../core/terminal-text.js';

export interface InspectKeyProps {
  readonly view: LockView;
  /** Full length of the TTL bar (see inspect-store's scales); the TTL itself when unknown. */
  readonly scaleMs?: number | undefined;
  /** Time since the snapshot was read: TTLs and deadlines are drawn this much further down. */
  readonly elapsedMs: number;
}

const SEVERITY_COLOR: Record<LockWarning['severity'], string> = { error: 'red', warning: 'yellow', info: 'gray' };

function summary(view: LockView): string {
  switch (view.kind) {
    case 'missing':
      return 'free: the key does not exist';
    case 'not-a-lock':
      return `not a lock: ${view.type}${view.size !== undefined ? `, size ${view.size}` : ''}`;
    case 'semaphore':
    case 'expirable-semaphore':
    case 'rs-semaphore':
    case 'latch':
      return '';
    case 'rw': {
      // Redisson keeps `mode` while anyone holds it; readers are counted apart from the writer.
      const readers = view.readers?.length ?? 0;
      if (!view.mode) return 'free';
      return readers > 0
        ? `${view.mode} mode, ${readers === 1 ? '1 reader' : `${readers} readers`}`
        : `${view.mode} mode`;
    }
    default:
      if (view.holders.length === 0) return 'free';
      return view.holders.length > 1 ? `${view.holders.length} holders` : 'held';
  }
}

const TTL_BAR_WIDTH = 20;

/** The bar gives way to the time left on a narrow terminal, so the row stays one row whatever the clock reads. */
const ttlBarWidth = (columns: number, leftText: string): number =>
  Math.max(0, Math.min(TTL_BAR_WIDTH, columns - LABEL_WIDTH - 1 - displayWidth(leftText)));

function TtlRow({ view, scaleMs, elapsedMs }: InspectKeyProps) {
  const columns = useAvailableColumns();
  if (view.ttlMs === -2) return null;
  if (view.ttlMs === -1) return <InspectRow label="ttl">{<Text>none: never expires on its own</Text>}</InspectRow>;
  const left = Math.max(0, view.ttlMs - elapsedMs);
  const leftText = formatDuration(left);
  return (
    <InspectRow label="ttl">
      <Text>
        <LeaseBar leftMs={left} leaseMs={Math.max(scaleMs ?? 0, view.ttlMs)} width={ttlBarWidth(columns, leftText)} />{' '}
        {leftText}
      </Text>
    </InspectRow>
  );
}

function Holders({ view }: { readonly view: LockView }) {
  const readers = new Set((view.readers ?? []).map((r) => r.owner));
  const holders = view.holders.filter((h) => !readers.has(h.owner));
  return (
    <>
      {holders.map((h, i) => (
        <InspectRow key={h.owner} label={i > 0 ? '' : h.write ? 'writer' : holders.length > 1 ? 'holders' : 'holder'}>
          {/* One row at any width: the owner id gives way (cut in the middle), the count and library stay. */}
          <Text wrap="truncate-middle">{h.owner}</Text>
          {h.count > 1 ? <Kept>{`  ${h.count} holds`}</Kept> : null}
          {view.library ? <Kept dimColor>{`  ${view.library} token`}</Kept> : null}
        </InspectRow>
      ))}
    </>
  );
}

const permitText = (p: PermitView, elapsedMs: number): string =>
  p.expired
    ? 'expired'
    : p.expiresInMs === null
      ? 'no expiry'
      : `expires in ${formatDuration(Math.max(0, p.expiresInMs - elapsedMs))}`;

/** Counters and permits: fenced token, semaphore permits, latch count. */
function Counters({ view, elapsedMs }: InspectKeyProps) {
  return (
    <>
      {view.token !== undefined && <InspectRow label="token">{<Text>{view.token}</Text>}</InspectRow>}
      {view.available !== undefined && (
        <InspectRow label="permits">{<Text>{view.available} available</Text>}</InspectRow>
      )}
      {(view.permits ?? []).map((p, i) => (
        <InspectRow key={p.id} label={i === 0 ? 'acquired' : ''}>
          <Text>
            {p.id}
            {'  '}
            <Text {...(p.expired ? { color: 'yellow' } : { dimColor: true })}>{permitText(p, elapsedMs)}</Text>
          </Text>
        </InspectRow>
      ))}
      {view.count !== undefined && <InspectRow label="count">{<Text>{view.count}</Text>}</InspectRow>}
    </>
  );
}

/** Everything one snapshot says about one key, with its countdowns moved on by `elapsedMs`. */
export function InspectKey(props: InspectKeyProps) {
  const { elapsedMs } = props;
  const view = safeStrings(props.view); // everything in it came from Redis or the user
  const waiting = view.waiters > 0 ? `${view.waiters} waiting for unlock` : '';
  return (
    <Box flexDirection="column" marginBottom={1}>
      {/* One row: the waiting count comes and goes between repaints, so a long key gives way (cut
          in the middle) rather than the header wrapping in some frames and not others. */}
      <Box gap={2}>
        <Text bold wrap="truncate-middle">
          {view.key}
        </Text>
        {view.kind !== 'missing' && view.kind !== 'not-a-lock' && <Kept dimColor>{view.kind}</Kept>}
        <Kept>{summary(view)}</Kept>
        {waiting && <Kept color="cyan">{waiting}</Kept>}
      </Box>
      <TtlRow {...props} />
      <Holders view={view} />
      {view.queue && <InspectQueue queue={view.queue} elapsedMs={elapsedMs} />}
      {(view.readers || view.orphanTimeoutKeys) && (
        <InspectReaders
          readers={view.readers ?? []}
          orphans={view.orphanTimeoutKeys ?? []}
          elapsedMs={elapsedMs}
          scaleMs={props.scaleMs ?? view.ttlMs}
        />
      )}
      <Counters {...props} />
      {view.warnings.map((w, i) => (
        // The same code can come twice (two zombie readers). A long message wraps under itself, not under the ⚠.
        <Box key={`${w.code}:${i}`}>
          <Text color={SEVERITY_COLOR[w.severity]}>⚠ </Text>
          <Text color={SEVERITY_COLOR[w.severity]}>{w.message}</Text>
        </Box>
      ))}
    </Box>
  );
}
