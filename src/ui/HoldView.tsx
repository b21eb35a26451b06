import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { formatDuration } from '../core/duration.js';
import { formatCommand, leaseLeft, RELEASE_REASON_TEXT, type HoldHolder, type HoldPhase, type HoldState, type LostReason } from '../core/hold-events.js';
import { LeaseBar } from './LeaseBar.js';
import { Kept } from './Kept.js';
import { displayWidth } from '../core/text-layout.js';
import { safeStrings } from '../core/terminal-text.js';
import { waitingParts } from '../core/wait-text.js';

export interface HoldViewProps {
  readonly state: HoldState;
  /** Epoch ms the countdown is drawn at (the container ticks it). */
  readonly now: number;
  /** Terminal width: rows that move with the clock are cut to it, never wrapped. */
  readonly columns?: number;
}

const PHASE: Record<HoldPhase, { readonly label: string; readonly color: string }> = {
  acquiring: { label: 'acquiring', color: 'yellow' },
  held: { label: 'held', color: 'green' },
  renewing: { label: 'renewing', color: 'cyan' },
  reconnecting: { label: 'reconnecting', color: 'yellow' },
  lost: { label: 'LOST', color: 'red' },
  released: { label: 'released', color: 'gray' },
  expired: { label: 'lease expired', color: 'gray' },
  'not-acquired': { label: 'not acquired', color: 'red' },
};

function lostText(reason: LostReason, state: HoldState): string {
  if (reason === 'renewal-refused') return 'a renewal found it no longer ours';
  if (reason === 'gone') return 'it was deleted or taken over (force-unlocked?)';
  return state.mode === 'fixed' ? 'the fixed lease ran out while the command was still running' : 'no renewal reached Redis before the lease ran out';
}

// A renewal normally answers within milliseconds; say so once it has not for this long.
const SLOW_RENEWAL_MS = 500;

const holdersText = (holders: readonly HoldHolder[]): string =>
  holders.length === 0 ? 'nobody' : holders.map((h) => (h.count > 1 ? `${h.owner} (${h.count} holds)` : h.owner)).join(', ');

const LABEL_WIDTH = 10;
const LEASE_BAR_WIDTH = 24;

/**
 * The lease bar is what gives way on a narrow terminal: the countdown beside it is Kept (it is
 * the number the user reads) and a Kept part never shrinks, so at 45 columns a full bar pushed the
 * row past the edge and the terminal wrapped it, which ink does not count when it repaints.
 */
const leaseBarWidth = (columns: number, leaseText: string): number =>
  Math.max(0, Math.min(LEASE_BAR_WIDTH, columns - LABEL_WIDTH - displayWidth(leaseText)));

/** A labelled row; `cut` keeps it to one row, cut at its end or (an owner id) in its middle. */
function Row({ label, cut, children }: { readonly label: string; readonly cut?: 'end' | 'middle'; readonly children: ReactNode }) {
  return (
    <Box>
      <Box width={LABEL_WIDTH} flexShrink={0}>
        <Text dimColor>{label}</Text>
      </Box>
      <Text wrap={cut ? `truncate-${cut}` : 'wrap'}>{children}</Text>
    </Box>
  );
}

/** A labelled row whose `kept` part never shrinks and whose dim `rest` is cut at the edge. */
function KeptRow({ label, kept, rest }: { readonly label: string; readonly kept: ReactNode; readonly rest: string }) {
  return (
    <Box>
      <Box width={LABEL_WIDTH} flexShrink={0}>
        <Text dimColor>{label}</Text>
      </Box>
      <Kept>{kept}</Kept>
      <Text dimColor wrap="truncate-end">
        {rest}
      </Text>
    </Box>
  );
}

const ago = (now: number, at: number): string => `${formatDuration(Math.max(0, now - at))} ago`;

/** Holder, lease countdown, renewals, state and the command of one `hold`. */
export function HoldView({ state: raw, now, columns = 80 }: HoldViewProps) {
  const state = safeStrings(raw); // holders, key, owner and the command came from Redis or the user
  const phase = PHASE[state.phase];
  const active = state.endedAt === undefined;
  const left = leaseLeft(state, now);
  const leaseText = left === undefined || state.leaseMs === undefined ? '' : active ? `  ${formatDuration(left)} left of ${formatDuration(state.leaseMs)}` : formatDuration(state.leaseMs);
  return (
    // Rows whose width moves with the clock or the phase are one row at any width: a row that
    // wrapped in some repaints and not others changed the frame's height, and a terminal could
    // keep a row of an old frame. What gives way is cut with "…": the target, the lease's mode.
    <Box flexDirection="column" width={columns}>
      <Box gap={2}>
        <Kept bold>{state.key}</Kept>
        <Text dimColor wrap="truncate-end">
          {state.kind}
          {state.target !== undefined ? `  on ${state.target}` : ''}
        </Text>
        <Kept color={phase.color} bold>
          ● {phase.label}
        </Kept>
      </Box>
      {/* Until it is ours, "holder" would suggest we hold it: say whom we act as. */}
      {/* One row at any width: an owner id wrapped onto a second row at 40 columns. */}
      <Row label={state.acquiredAt === undefined ? 'as' : 'holder'} cut="middle">
        {state.owner}
      </Row>
      {state.leaseMs !== undefined && left !== undefined && (
        <KeptRow
          label="lease"
          kept={
            <>
              {active ? <LeaseBar leftMs={left} leaseMs={state.leaseMs} width={leaseBarWidth(columns, leaseText)} /> : null}
              {leaseText}
            </>
          }
          rest={state.mode === 'watchdog' ? '  watchdog' : '  fixed, not renewed'}
        />
      )}
      {/* Before the lock is ours there is no lease yet to renew ("every 0 ms"). */}
      {state.mode === 'watchdog' && state.acquiredAt !== undefined && (
        <Row label="renewals" cut="end">
          {state.renewals}
          <Text dimColor> (every {formatDuration(state.renewEveryMs ?? (state.leaseMs ?? 0) / 3)})</Text>
          {state.lastRenewalAt !== undefined ? `, last ${ago(now, state.lastRenewalAt)}` : ''}
        </Row>
      )}
      {state.token !== undefined && <Row label="token">{state.token}</Row>}
      {state.count !== undefined && state.count > 1 && <Row label="holds">{state.count} (re-entrant)</Row>}
      {state.child && (
        <KeptRow
          label="command"
          kept={`pid ${state.child.pid} ${childStatus(state.child.status, state.child.code, state.child.signal)}  `}
          rest={formatCommand(state.child.command)}
        />
      )}
      <Notice state={state} now={now} />
    </Box>
  );
}

function childStatus(status: 'running' | 'stopping' | 'exited', code: number | null | undefined, signal: string | null | undefined): string {
  if (status !== 'exited') return status;
  return code !== null && code !== undefined ? `exited ${code}` : `killed by ${signal ?? 'a signal'}`;
}

/** The one line that says what is going on right now, or what to do. */
function Notice({ state, now }: HoldViewProps) {
  switch (state.phase) {
    case 'acquiring':
      return state.waiting && state.acquiringSince !== undefined ? (
        <Waiting parts={waitingParts(state.waiting, state.acquiringSince, now)} />
      ) : (
        <Text dimColor>waiting for the lock… (Ctrl-C gives up)</Text>
      );
    case 'not-acquired':
      return (
        <Text color="red">
          held by {holdersText(state.refusedBy ?? [])}
          {state.expiresAt !== undefined && state.endedAt !== undefined ? ` for another ${formatDuration(state.expiresAt - state.endedAt)}` : ''}
        </Text>
      );
    case 'lost':
      return (
        <Text color="red">
          lost: {lostText(state.lost?.reason ?? 'gone', state)}
          {state.lost?.holders ? `; ${holdersText(state.lost.holders)} holds it now` : ''}
        </Text>
      );
    case 'released':
      return (
        <Text dimColor>
          {state.releaseOutcome === 'decremented' ? 'released one hold' : 'released'} after {formatDuration(state.heldMs ?? 0)}
          {state.releaseReason ? ` (${RELEASE_REASON_TEXT[state.releaseReason]})` : ''}
        </Text>
      );
    case 'expired':
      return <Text dimColor>lease ran out after {formatDuration(state.heldMs ?? 0)}: the lock is free</Text>;
    case 'reconnecting':
      return <Text color="yellow">connection to {state.reconnectingTo} lost: reconnecting… the lease keeps counting down</Text>;
    default:
      if (state.renewingSince !== undefined && now - state.renewingSince >= SLOW_RENEWAL_MS) {
        return (
          <Text color="yellow" wrap="truncate-end">
            renewal sent {ago(now, state.renewingSince)}, no answer yet; the lease keeps counting down
          </Text>
        );
      }
      if (state.retry) {
        const retryIn = Math.max(0, state.retry.at + state.retry.retryInMs - now);
        return (
          <Text color="yellow" wrap="truncate-end">
            retrying in {formatDuration(retryIn)}: {state.retry.error}
          </Text>
        );
      }
      return <Text dimColor>Ctrl-C releases the lock and exits</Text>;
  }
}

/**
 * Waiting for the lock: the line that moves with the clock, cut to the width, and the holders
 * under it, which change only when an attempt is refused (long owner ids may wrap there).
 */
function Waiting({ parts }: { readonly parts: ReturnType<typeof waitingParts> }) {
  return (
    <Box flexDirection="column">
      <Text color="yellow" wrap="truncate-end">
        waiting (Ctrl-C gives up): {parts.progress}
      </Text>
      {parts.holders !== undefined && <Text color="yellow">{parts.holders}</Text>}
    </Box>
  );
}
