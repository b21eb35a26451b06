import { Box, Text } from 'ink';
import { formatDuration } from '../core/duration.js';
import type { LockView } from '../core/lock-view.js';
import type { NodeStatus } from '../sandbox/status.js';
import { viewShows } from '../core/held-view.js';
import type { HeldLock, ReplScreen, SandboxPanel, Waiting, WhoPanel } from './repl-screen.js';
import { InspectKey } from './InspectKey.js';
import { LeaseBar } from './LeaseBar.js';
import { safeStrings, safeText } from '../core/terminal-text.js';
import { formatWho } from '../core/who/text.js';
import { Inset } from './use-terminal-size.js';

export interface ReplPanelProps {
  readonly screen: ReplScreen;
  /** Drawing time: countdowns run from the read's time to this. */
  readonly now: number;
}

// The panel's single-line border and one column of padding on each side.
const PANEL_FRAME_COLUMNS = 4;

/** Beyond this many watched keys each gets one line instead of the full inspect block. */
export const FULL_KEYS = 3;

const nodeText = (n: NodeStatus): string =>
  [
    n.name.padEnd(4),
    (n.role === 'unknown' ? '-' : n.role).padEnd(8),
    n.state.padEnd(8),
    n.role === 'replica' && n.offset !== undefined
      ? `offset ${n.offset}${n.lagBytes ? `, lag ${n.lagBytes} B` : ''}`
      : '',
    n.role === 'primary' && n.offset !== undefined ? `offset ${n.offset}` : '',
    n.keys !== undefined ? `${n.keys} keys` : '',
    n.masterSeen !== undefined ? `sees master ${n.masterSeen}` : '',
  ]
    .filter(Boolean)
    .join('  ');

function SandboxNodes({ sandbox }: { readonly sandbox: SandboxPanel }) {
  const status = sandbox.status;
  return (
    <Box flexDirection="column" marginBottom={1}>
      <Text>
        <Text bold>sandbox {sandbox.name}</Text>
        {status ? <Text dimColor> {status.topology}</Text> : null}
        {sandbox.error ? <Text color="yellow"> status failed: {safeText(sandbox.error)}</Text> : null}
      </Text>
      {(status?.nodes ?? []).map((n) => (
        <Text key={n.name} {...(n.state === 'running' ? {} : { color: 'yellow' })}>
          {'  '}
          {nodeText(n)}
        </Text>
      ))}
    </Box>
  );
}

/** Who of this REPL holds (as this very read shows) or waits for a key, under its inspect block. */
function clientsOn(view: LockView, held: readonly HeldLock[], waiting: readonly Waiting[]): string {
  const key = view.key;
  const holds = held.filter((h) => h.key === key && viewShows(view, h.owner)).map((h) => `${h.client} holds it`);
  const waits = waiting.filter((w) => w.key === key).map((w) => `${w.client} waits`);
  return safeText([...holds, ...waits].join(' · '));
}

function CompactKey({
  view: raw,
  elapsedMs,
  target,
}: {
  readonly view: LockView;
  readonly elapsedMs: number;
  readonly target: string;
}) {
  const view = safeStrings(raw);
  const holders = view.holders.map((h) => h.owner).join(', ');
  const ttl = view.ttlMs >= 0 ? formatDuration(Math.max(0, view.ttlMs - elapsedMs)) : view.ttlMs === -1 ? 'no ttl' : '';
  return (
    <Text wrap="truncate-end">
      <Text bold>{view.key}</Text> <Text dimColor>{view.kind}</Text> {holders ? `held by ${holders}` : 'free'} {ttl}
      {view.waiters > 0 ? <Text color="cyan"> {view.waiters} waiting</Text> : null}
      <Text dimColor> on {target}</Text>
    </Text>
  );
}

function HeldRow({
  lock: raw,
  view,
  elapsedMs,
  scaleMs,
  elsewhere = false,
}: {
  readonly lock: HeldLock;
  readonly view?: LockView | undefined;
  readonly elapsedMs: number;
  readonly scaleMs?: number | undefined;
  /** On another target than the panel reads: its lease as asked for, never a read from here. */
  readonly elsewhere?: boolean;
}) {
  const lock = safeStrings(raw); // key and client name came from the user
  // Redis's own TTL once a read after the lock was taken is in; until then the lease as asked for.
  const ttl = view && view.ttlMs >= 0 ? Math.max(0, view.ttlMs - elapsedMs) : undefined;
  const how =
    lock.via === 'hold'
      ? `${lock.mode === 'fixed' ? 'fixed lease' : `watchdog, ${lock.renewals === 1 ? '1 renewal' : `${lock.renewals} renewals`}`} (hold %${lock.jobId})`
      : 'acquire, left to its lease';
  return (
    <Text wrap="truncate-end">
      <Text bold>{lock.client}</Text> holds <Text bold>{lock.key}</Text> <Text dimColor>{lock.kind}</Text>
      {lock.where !== undefined ? <Text {...(elsewhere ? { color: 'yellow' } : {})}> on {lock.where}</Text> : null}{' '}
      {ttl !== undefined ? (
        <Text>
          <LeaseBar leftMs={ttl} leaseMs={Math.max(scaleMs ?? 0, lock.leaseMs, ttl)} width={12} /> {formatDuration(ttl)}
        </Text>
      ) : (
        <Text dimColor>lease {formatDuration(lock.leaseMs)}</Text>
      )}{' '}
      <Text dimColor>
        {how}
        {elsewhere ? ', another target (not read from here)' : ''}
      </Text>
    </Text>
  );
}

function WaitingRow({ wait: raw, now }: { readonly wait: Waiting; readonly now: number }) {
  const wait = safeStrings(raw);
  const left = wait.untilAt !== undefined ? `, gives up in ${formatDuration(Math.max(0, wait.untilAt - now))}` : '';
  return (
    <Text color="cyan" wrap="truncate-end">
      <Text bold>{wait.client}</Text> waits for <Text bold>{wait.key}</Text>
      {wait.where !== undefined ? ` on ${wait.where}` : ''}
      <Text dimColor>{wait.jobId !== undefined ? ` (hold %${wait.jobId}${left})` : ' (Ctrl-C cancels)'}</Text>
    </Text>
  );
}

/** `who`'s newest report: the same lines the command prints, under a head naming its target and sample. */
function WhoSection({ who }: { readonly who: WhoPanel }) {
  const { sample } = who.report;
  return (
    <Box flexDirection="column" marginBottom={1}>
      <Text wrap="truncate-end">
        <Text bold>who</Text>
        <Text dimColor>
          {' '}
          on {safeText(who.target)}
          {sample.ms > 0 ? `, sampled ${formatDuration(sample.ms)}` : ', no sample'}
        </Text>
      </Text>
      {formatWho(who.report).map((line, i) => (
        // The report is replaced whole, never edited in place: a line's place is its identity.
        <Text key={i} wrap="truncate-end">
          {safeText(line)}
        </Text>
      ))}
    </Box>
  );
}

function PanelStatus({ screen, now }: ReplPanelProps) {
  const { panel } = screen;
  if (panel.reconnecting) return <Text color="yellow">reconnecting to {screen.target}…</Text>;
  if (panel.retry) {
    const left = formatDuration(Math.max(0, panel.retry.at + panel.retry.retryInMs - now));
    return (
      <Text color="yellow" wrap="truncate-end">
        read failed, retrying in {left}: {safeText(panel.retry.error)}
      </Text>
    );
  }
  if (panel.readAt === undefined) return <Text dimColor>reading {screen.target}…</Text>;
  const late =
    now - panel.readAt > 2 * panel.intervalMs ? ` · last read ${formatDuration(now - panel.readAt)} ago` : '';
  return (
    <Text dimColor>
      ● {screen.target} every {formatDuration(panel.intervalMs)}
      {late}
    </Text>
  );
}

/** The live part above the prompt: sandbox nodes, watched keys, and what this REPL's clients hold. */
export function ReplPanel({ screen, now }: ReplPanelProps) {
  const { panel, held, waiting } = screen;
  const elapsedMs = panel.readAt === undefined ? 0 : Math.max(0, now - panel.readAt);
  const watchedViews = panel.watched.map((k) => panel.views[k]).filter((v): v is LockView => v !== undefined);
  const reading = panel.watched.length > 0 || held.length > 0 || waiting.length > 0;
  if (!reading && !screen.sandbox && !screen.who && screen.heldElsewhere.length === 0) return null;
  const full = watchedViews.length <= FULL_KEYS;
  return (
    <Box flexDirection="column" borderStyle="single" borderDimColor paddingX={1}>
      <Inset columns={PANEL_FRAME_COLUMNS}>
        {screen.sandbox && <SandboxNodes sandbox={screen.sandbox} />}
        {screen.who && <WhoSection who={screen.who} />}
        {watchedViews.map((view) => {
          const who = clientsOn(view, held, waiting);
          return full ? (
            <Box key={view.key} flexDirection="column">
              <InspectKey view={view} scaleMs={panel.scales[view.key]} elapsedMs={elapsedMs} />
              <Text>
                {who ? <Text color="magenta">{who} · </Text> : null}
                <Text dimColor>on {screen.target}</Text>
              </Text>
            </Box>
          ) : (
            <CompactKey key={view.key} view={view} elapsedMs={elapsedMs} target={screen.target} />
          );
        })}
        {held.map((lock) => (
          <HeldRow
            key={`${lock.client}:${lock.key}:${lock.jobId ?? ''}`}
            lock={lock}
            // A read sent before the lock was taken shows someone else's lease, or none.
            view={panel.readAt !== undefined && panel.readAt >= lock.since ? panel.views[lock.key] : undefined}
            elapsedMs={elapsedMs}
            scaleMs={panel.scales[lock.key]}
          />
        ))}
        {screen.heldElsewhere.map((lock) => (
          <HeldRow
            key={`${lock.client}:${lock.key}:${lock.where ?? ''}:${lock.jobId ?? ''}`}
            lock={lock}
            elapsedMs={elapsedMs}
            elsewhere
          />
        ))}
        {waiting.map((wait) => (
          <WaitingRow key={`${wait.client}:${wait.key}:${wait.jobId ?? ''}`} wait={wait} now={now} />
        ))}
        {reading && <PanelStatus screen={screen} now={now} />}
      </Inset>
    </Box>
  );
}
