import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { formatDuration } from '../core/duration.js';
import type { RaceLiveState } from '../core/race/live.js';
import { formatWait, sparkline } from '../core/race/stats.js';
import { Kept } from './Kept.js';

export interface RaceViewProps {
  readonly state: RaceLiveState;
  /** Terminal width: the sparkline and share bars use what is there. */
  readonly columns?: number;
}

const LABEL = 13;
// Enough to see who is favoured and who starves without a thousand-line screen.
const SHARES_SHOWN = 3;
const RECENT = 3;

// Every row is cut at the edge, never wrapped: counters grow, faults and violations scroll, and a
// row that wrapped in some repaints changed the frame's height (a terminal can then keep a row of
// an old frame). The summary printed when the race ends gives faults and violations in full.
function Row({ label, children }: { readonly label: string; readonly children: ReactNode }) {
  return (
    <Box>
      <Box width={LABEL} flexShrink={0}>
        <Text dimColor>{label}</Text>
      </Box>
      <Text wrap="truncate-end">{children}</Text>
    </Box>
  );
}

const ms = formatWait;
const pct = (share: number): string => `${(share * 100).toFixed(1)}%`;
const bar = (share: number, width: number): string => '█'.repeat(Math.max(share > 0 ? 1 : 0, Math.round(share * width)));

/** One repaint of a running race: throughput, waits, fairness, holders, faults and violations. */
export function RaceView({ state, columns = 80 }: RaceViewProps) {
  const { plan, snapshot: s, violations } = state;
  const width = Math.max(10, columns - LABEL - 20);
  const top = s.shares.slice(0, SHARES_SHOWN);
  const bottom = s.shares.length > SHARES_SHOWN ? s.shares.at(-1) : undefined;
  const maxShare = Math.max(0.0001, ...s.shares.map((x) => x.share));
  return (
    <Box flexDirection="column">
      {/* One row whatever the width: the plan gives way (cut with …), never the key or the clock.
          A header that wrapped only while the clock read "850 ms" changed the frame's height
          between repaints, and a terminal could keep a row of the old frame. */}
      <Box gap={2} width={columns}>
        <Kept bold>race {plan.keys.join(', ')}</Kept>
        <Text dimColor wrap="truncate-end">
          {plan.kind} · {plan.clients} clients{plan.procs > 0 ? ` in ${plan.procs} processes` : ''} · {state.target}
        </Text>
        <Kept>
          {formatDuration(Math.min(s.elapsedMs, plan.durationMs))} / {formatDuration(plan.durationMs)}
        </Kept>
      </Box>
      <Row label="acquisitions">
        {s.acquisitions} · {s.ratePerSec.toFixed(1)}/s <Text color="cyan">{sparkline(s.series, width)}</Text>
      </Row>
      <Row label="wait">
        p50 {ms(s.waits.p50)} · p95 {ms(s.waits.p95)} · p99 {ms(s.waits.p99)}
        <Text dimColor>
          {'  '}timeouts {s.timeouts} · errors {s.errors}
        </Text>
      </Row>
      <Row label="fairness">
        {s.fairness.toFixed(2)} <Text dimColor>(Jain, 1 = even)</Text>
      </Row>
      {top.map((x) => (
        <Row key={x.client} label="">
          {x.client.padEnd(7)} {pct(x.share).padStart(6)} <Text color="green">{bar(x.share / maxShare, Math.min(30, width))}</Text>
        </Row>
      ))}
      {bottom && (
        <Row label="">
          {bottom.client.padEnd(7)} {pct(bottom.share).padStart(6)} <Text color="yellow">{bar(bottom.share / maxShare, Math.min(30, width))}</Text>
          <Text dimColor> (quietest)</Text>
        </Row>
      )}
      {s.keys.map((k) => (
        <Row key={k.key} label={s.keys.length > 1 ? k.key : 'holder'}>
          <Text color={k.holders.length > 1 ? 'red' : 'green'}>{k.holders.length === 0 ? 'nobody' : k.holders.join(', ')}</Text>
          <Text dimColor> · queue {k.waiting} waiting</Text>
        </Row>
      ))}
      <Row label="lost locks">
        {s.lostLocks}
        <Text dimColor>
          {' '}· not-owner releases {s.notOwner}
          {plan.release === 'naive-del' ? ` · DELs of others' locks ${s.foreignDeletes}` : ''}
          {s.crashed > 0 ? ` · crashed ${s.crashed}` : ''}
        </Text>
      </Row>
      <Row label="faults">{s.faults.length === 0 ? <Text dimColor>{plan.chaos ? `${plan.chaos}: none yet` : 'none'}</Text> : s.faults.length}</Row>
      {s.faults.slice(-RECENT).map((f, i) => (
        <Row key={`f${s.faults.length - RECENT + i}`} label="">
          <Text color="yellow">{f}</Text>
        </Row>
      ))}
      <Row label="violations">
        {violations.length === 0 ? <Text color="green">none so far</Text> : <Text color="red" bold>{violations.length}</Text>}
      </Row>
      {violations.slice(-RECENT).map((v, i) => (
        <Row key={`v${violations.length - RECENT + i}`} label="">
          <Text color="red">
            {v.kind}: {v.message}
          </Text>
        </Row>
      ))}
    </Box>
  );
}
