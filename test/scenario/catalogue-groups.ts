// Which test file runs which shipped scenario: one list per sandbox the scenarios share. The
// catalogue test in shipped.test.ts checks that together they name every scenarios/*.yaml once,
// so a scenario added to the catalogue cannot go untested.

/** runner-shipped.test.ts: the first four, on one single-node sandbox. */
export const SINGLE_NODE_BASICS = ['expired-lease-misdeletion', 'setnx-expire-crash', 'get-then-del-race', 'gc-pause-no-fencing'] as const;

/** catalogue-single.test.ts: watchdog, reentrancy, refresh and key-collision races on one node. */
export const SINGLE_NODE_LOCKS = ['watchdog-crash-vs-hang', 'reentrancy-count-mismatch', 'silent-reacquire', 'lock-key-collision'] as const;

/** catalogue-redlock.test.ts: the multi-node Redlock races on a 5-node sandbox. */
export const REDLOCK = ['redlock-clock-jump', 'redlock-restart-amnesia', 'redlock-pause-during-acquire'] as const;

/** catalogue-replicas-queues.test.ts: the one that needs Sentinel. */
export const SENTINEL = ['master-failover-lock-loss'] as const;

/** catalogue-replicas-queues.test.ts: partitions, fair queues and read-write locks on one node. */
export const SINGLE_NODE_QUEUES = ['client-partition', 'fair-lock-dead-waiter', 'rwlock-writer-starvation', 'orphan-rwlock-timeout'] as const;

export const CATALOGUE_GROUPS = { SINGLE_NODE_BASICS, SINGLE_NODE_LOCKS, REDLOCK, SENTINEL, SINGLE_NODE_QUEUES } as const;
