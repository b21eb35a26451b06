// What each doctor finding means and which shipped scenario (scenarios/*.yaml, `redlock-cli
// scenario show <name>`) replays it. Help and every printed finding cite the scenario by this
// name, which a user can run; a test checks each name is a shipped scenario.

export interface DoctorCode {
  readonly code: string;
  readonly severity: 'error' | 'warning';
  readonly meaning: string;
  readonly scenario?: string;
}

export const DOCTOR_CODES: readonly DoctorCode[] = [
  { code: 'no-ttl', severity: 'error', meaning: 'a lock key without TTL never frees if its holder dies', scenario: 'setnx-expire-crash' },
  { code: 'queue-entry-without-deadline', severity: 'error', meaning: 'a fair waiter Redisson never purges', scenario: 'fair-lock-dead-waiter' },
  {
    code: 'silent-queue-head',
    severity: 'warning',
    meaning: 'the next fair waiter does not listen on its wake-up channel: gone, and everyone behind it waits until its deadline',
    scenario: 'fair-lock-dead-waiter',
  },
  { code: 'overdue-waiter', severity: 'warning', meaning: 'fair waiters past their deadline: dead, purged at the next try', scenario: 'fair-lock-dead-waiter' },
  { code: 'queue-drift', severity: 'warning', meaning: 'fair deadlines further out than waiters x --fair-wait', scenario: 'fair-lock-dead-waiter' },
  { code: 'zombie-reader', severity: 'warning', meaning: 'a reader whose timeout keys are gone, still counted', scenario: 'orphan-rwlock-timeout' },
  { code: 'orphan-timeout-key', severity: 'warning', meaning: 'a read-hold key no counted hold owns', scenario: 'orphan-rwlock-timeout' },
  {
    code: 'orphan-companion',
    severity: 'warning',
    meaning: "a read-hold key whose lock is gone, or a companion key whose lock's name holds other data",
    scenario: 'orphan-rwlock-timeout',
  },
  {
    code: 'leaked-fencing-counter',
    severity: 'warning',
    meaning: 'fenced-lock token counters with no lock beside them: how many, their memory, a clean-up for retired names',
  },
  { code: 'huge-hold-count', severity: 'warning', meaning: 'more than 100 re-entrant holds: lock() without unlock()', scenario: 'reentrancy-count-mismatch' },
  {
    code: 'app-data-on-lock-name',
    severity: 'warning',
    meaning: 'a lock-like name (lock, mutex, sema, latch) holding other data',
    scenario: 'lock-key-collision',
  },
  { code: 'replica-lag', severity: 'warning', meaning: 'a replica behind its primary: a failover now would lose recent locks', scenario: 'master-failover-lock-loss' },
  { code: 'replica-offline', severity: 'error', meaning: 'a replica not online: a failover to it would drop locks', scenario: 'master-failover-lock-loss' },
  {
    code: 'renewed-without-holder',
    severity: 'warning',
    meaning: "with --renewals: a lock renewed while no connection is named with its holder's client UUID",
    scenario: 'watchdog-crash-vs-hang',
  },
];

/** The shipped scenario that replays a finding's problem, if there is one. */
export function scenarioFor(code: string): string | undefined {
  return DOCTOR_CODES.find((c) => c.code === code)?.scenario;
}
