import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DURATION_BUCKETS } from '../core/export/buckets.js';
import { COUNTERS, type CounterName, type GaugeRow, type MetricSink } from '../core/export/fold.js';
import type { LockLabels } from '../core/export/labels.js';
import { FINDING_KINDS, findingClass, type FindingKind } from '../core/trace/finding-kinds.js';

// The exporter's metrics as prom-client objects: the lock metrics (fed through the fold's sink
// and, for gauges, set from its state at each scrape) and the exporter's own. prom-client is the
// Prometheus project's Node client: its text format, histogram and process metrics are the ones
// every Prometheus reads, and writing them by hand would be a second, untested copy.

const LOCK_LABELS = ['group', 'kind', 'library'] as const;

/** What each counter counts, for its HELP line. */
const COUNTER_HELP: Record<CounterName, string> = {
  acquisitions: 'Holds begun (a re-entry is not a new hold)',
  refusals: 'Acquisition attempts the server refused (the lock was held)',
  releases: 'Holds ended by their owner',
  renewals: 'Lease renewals (watchdog, extend)',
  renewals_refused: 'Renewals refused: the owner no longer held the lock',
  releases_refused: 'Releases refused: the owner no longer held the lock',
  expiries: 'Holds ended by their lease running out',
  expired_while_held: 'Leases that ran out while their owner still acted as holder (it renewed or released later, and was refused)',
  foreign_deletes: 'Held locks removed by DEL, UNLINK, FLUSH or a force-unlock from another connection',
  renewal_gaps: 'Renewals with less than a third of the lease left, or renewals that stopped before an expiry',
  queue_overdue: 'Fair-queue heads purged after their deadline passed (a stuck queue)',
  lost_in_failover: 'Holds absent on the primary promoted by a failover',
  overlaps: 'Holds that shared time with a stale holder (two inside at once)',
};

/** Series one lock label set can have: two wait histograms, one hold histogram, four gauges, the counters, one findings counter per kind, the orphan gauge. */
export const SERIES_PER_LABEL_SET = 3 * (DURATION_BUCKETS.length + 3) + 4 + COUNTERS.length + FINDING_KINDS.length + 1;

export class ExportMetrics implements MetricSink {
  readonly locks = new Registry();
  readonly self = new Registry();
  private readonly counters: Record<CounterName, Counter<string>>;
  private readonly findings: Counter<string>;
  private readonly waits: Histogram<string>;
  private readonly holds: Histogram<string>;
  private readonly holders: Gauge<string>;
  private readonly waiters: Gauge<string>;
  private readonly oldestHold: Gauge<string>;
  private readonly oldestLeaseLeft: Gauge<string>;
  private readonly orphans: Gauge<string>;
  readonly events: Counter<string>;
  readonly lag: Gauge<string>;
  readonly reconnects: Counter<string>;
  readonly up: Gauge<string>;
  readonly blind: Gauge<string>;
  readonly groups: Gauge<string>;
  readonly overflow: Gauge<string>;
  readonly series: Gauge<string>;
  readonly scanErrors: Counter<string>;
  /** Label sets that had a holder or waiter once (bounded by the group cap): their gauges stay, at 0. */
  private readonly seen = new Map<string, LockLabels>();
  private readonly counted = new Set<string>();

  constructor(groupCap: number) {
    const locks = [this.locks];
    const self = [this.self];
    this.counters = Object.fromEntries(
      COUNTERS.map((name) => [name, new Counter({ name: `redlock_lock_${name}_total`, help: COUNTER_HELP[name], labelNames: LOCK_LABELS, registers: locks })]),
    ) as Record<CounterName, Counter<string>>;
    // `finding` is the kind, `class` follows from it (no more series): one selector for "anything
    // unsafe" or "a deadlock" alike. Not `severity`, which alerting rules set on their alerts.
    this.findings = new Counter({ name: 'redlock_lock_findings_total', help: "Findings of trace's checker, by kind (finding) and class: unsafe (trace exits 7), liveness (deadlock, starvation) or warning", labelNames: [...LOCK_LABELS, 'finding', 'class'], registers: locks });
    this.waits = new Histogram({ name: 'redlock_lock_acquire_wait_seconds', help: 'From the first attempt to the acquisition (outcome acquired), or to the last attempt of a waiter that gave up (abandoned)', labelNames: [...LOCK_LABELS, 'outcome'], buckets: [...DURATION_BUCKETS], registers: locks });
    this.holds = new Histogram({ name: 'redlock_lock_hold_seconds', help: 'From the acquisition to the release, expiry or delete that ended the hold', labelNames: LOCK_LABELS, buckets: [...DURATION_BUCKETS], registers: locks });
    this.holders = new Gauge({ name: 'redlock_lock_holders', help: 'Owners holding a lock now (readers and permits each count)', labelNames: LOCK_LABELS, registers: locks });
    this.waiters = new Gauge({ name: 'redlock_lock_waiters', help: 'Owners waiting now: fair-queue members, and pollers refused in the last minute', labelNames: LOCK_LABELS, registers: locks });
    this.oldestHold = new Gauge({ name: 'redlock_lock_oldest_hold_seconds', help: 'How long the longest current hold has lasted', labelNames: LOCK_LABELS, registers: locks });
    this.oldestLeaseLeft = new Gauge({ name: 'redlock_lock_oldest_lease_left_seconds', help: 'Lease left of the longest current hold (absent: no TTL)', labelNames: LOCK_LABELS, registers: locks });
    this.orphans = new Gauge({ name: 'redlock_lock_orphan_keys', help: "Companion keys (fair queues, read-hold timeouts, permit deadlines) whose lock is gone, at the last scan", labelNames: ['group'], registers: locks });
    this.events = new Counter({ name: 'redlock_exporter_events_total', help: 'Lock events decoded', registers: self });
    this.lag = new Gauge({ name: 'redlock_exporter_lag_seconds', help: 'How far behind the server the source is', registers: self });
    this.reconnects = new Counter({ name: 'redlock_exporter_reconnects_total', help: 'Times the connection to a primary was lost and the exporter reconnected (or followed a failover)', registers: self });
    this.up = new Gauge({ name: 'redlock_exporter_up', help: '1 while every primary is followed, 0 while a connection is being recovered', registers: self });
    this.blind = new Gauge({ name: 'redlock_exporter_blind', help: 'Primaries the exporter cannot see now (lost, or notifications turned off)', registers: self });
    this.groups = new Gauge({ name: 'redlock_exporter_groups', help: `Lock groups in use (at most the cap, ${groupCap}, plus other)`, registers: self });
    new Gauge({ name: 'redlock_exporter_groups_max', help: 'The cap on lock groups (--max-groups)', registers: self }).set(groupCap);
    this.overflow = new Gauge({ name: 'redlock_exporter_group_overflow', help: 'Lock names put in the group "other" because the cap was reached', registers: self });
    this.series = new Gauge({ name: 'redlock_exporter_series', help: 'Lock series in the last scrape', registers: self });
    new Gauge({ name: 'redlock_exporter_series_per_group', help: 'Series one group, kind and library can have', registers: self }).set(SERIES_PER_LABEL_SET);
    this.scanErrors = new Counter({ name: 'redlock_exporter_scan_errors_total', help: 'Polls or orphan scans that failed (retried at the next interval)', registers: self });
    collectDefaultMetrics({ register: this.self, prefix: 'redlock_exporter_' });
  }

  count(counter: CounterName, labels: LockLabels): void {
    this.ensure(labels);
    this.counters[counter].inc({ ...labels });
  }

  found(labels: LockLabels, finding: FindingKind): void {
    this.ensure(labels);
    this.findings.inc({ ...labels, finding, class: findingClass(finding) });
  }

  wait(labels: LockLabels, outcome: 'acquired' | 'abandoned', seconds: number): void {
    this.ensure(labels);
    this.waits.observe({ ...labels, outcome }, seconds);
  }

  hold(labels: LockLabels, seconds: number): void {
    this.ensure(labels);
    this.holds.observe({ ...labels }, seconds);
  }

  /**
   * Every counter of a new label set starts at 0: Prometheus's increase() needs a sample before
   * the first event, or the first expiry of a group would never show as an increase (nor alert).
   */
  private ensure(labels: LockLabels): void {
    const key = labelKey(labels);
    if (this.counted.has(key)) return;
    this.counted.add(key);
    for (const c of Object.values(this.counters)) c.inc({ ...labels }, 0);
    for (const finding of FINDING_KINDS) this.findings.inc({ ...labels, finding, class: findingClass(finding) }, 0);
  }

  /** The gauges from the fold's state now: label sets seen before with nobody left now show 0. */
  setGauges(rows: readonly GaugeRow[]): void {
    for (const g of [this.holders, this.waiters, this.oldestHold, this.oldestLeaseLeft]) g.reset();
    const now = new Set<string>();
    for (const r of rows) {
      const labels = { ...r.labels };
      now.add(labelKey(labels));
      this.seen.set(labelKey(labels), labels);
      this.holders.set(labels, r.holders);
      this.waiters.set(labels, r.waiters);
      if (r.oldestHoldSeconds !== undefined) this.oldestHold.set(labels, r.oldestHoldSeconds);
      if (r.oldestLeaseLeftSeconds !== undefined) this.oldestLeaseLeft.set(labels, r.oldestLeaseLeftSeconds);
    }
    for (const [key, labels] of this.seen) {
      if (now.has(key)) continue;
      this.holders.set({ ...labels }, 0);
      this.waiters.set({ ...labels }, 0);
    }
  }

  setOrphans(byGroup: ReadonlyMap<string, number>): void {
    this.orphans.reset();
    for (const [group, n] of byGroup) this.orphans.set({ group }, n);
  }

  /** The text a scrape gets: lock metrics, then the exporter's own (the series count of this very text included). */
  async text(): Promise<string> {
    const locks = await this.locks.metrics();
    let series = 0;
    for (let at = 0; at < locks.length; ) {
      const end = locks.indexOf('\n', at);
      const stop = end < 0 ? locks.length : end;
      if (stop > at && locks.charCodeAt(at) !== 35 /* # */) series++;
      at = stop + 1;
    }
    this.series.set(series);
    return `${locks}\n${await this.self.metrics()}`;
  }
}

const labelKey = (l: LockLabels): string => `${l.group}\u0000${l.kind}\u0000${l.library}`;
