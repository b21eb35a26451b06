import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/core/errors.js';
import { parseEndpointUrl } from '../../../src/core/endpoint.js';
import { keysRaceWrites } from '../../../src/core/race/keys.js';
import { checkRacePlan, describePlan, type RaceInput } from '../../../src/core/race/plan.js';

const base: RaceInput = {
  keys: ['orders'],
  kind: 'token',
  clients: 8,
  procs: 0,
  durationMs: 10_000,
  leaseMs: 200,
  holdMs: 20,
  holdDist: 'fixed',
  waitMs: 1000,
  release: 'safe',
  renew: true,
  target: { type: 'fresh' },
};

/** The user's own server: anything but a sandbox. */
const own = { type: 'url', endpoint: parseEndpointUrl('redis://127.0.0.1:1') } as const;

const refusal = (change: Partial<RaceInput>): string => {
  try {
    checkRacePlan({ ...base, ...change });
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('accepted');
};

describe('checkRacePlan', () => {
  it('accepts a plain plan and fills the chaos timing', () => {
    const plan = checkRacePlan({ ...base, chaos: 'pause' });
    expect(plan.chaosEveryMs).toBe(2000);
    // 2 x lease + hold: long enough for the lease to run out during the pause.
    expect(plan.chaosForMs).toBe(420);
    expect(describePlan(plan).join(' · ')).toContain('chaos pause every 2000 ms for 420 ms');
  });

  it.each([
    [{ clients: 0 }, '--clients must be a whole number of at least 1'],
    [{ clients: 2.5 }, '--clients'],
    [{ clients: 20_000 }, 'more than 10000'],
    [{ procs: 9 }, 'more than --clients 8'],
    [{ holdMs: 10_000 }, '--hold must be shorter than --duration'],
    [{ kind: 'mutex' }, 'unknown lock kind "mutex"'],
    [{ kind: 'read' }, 'use --kind write'],
    [{ holdDist: 'normal' }, 'unknown --hold-dist "normal"'],
    [{ release: 'del' }, 'unknown --release "del"'],
    [{ chaos: 'flood' }, 'unknown --chaos verb "flood"'],
    [{ chaosEveryMs: 1000 }, '--chaos-every goes with --chaos'],
    [{ chaos: 'pause', chaosEveryMs: 10_000 }, '--chaos-every must be shorter than --duration'],
    [{ chaos: 'pause', chaosEveryMs: 1000, chaosForMs: 1000 }, '--chaos-for must be shorter than --chaos-every'],
    [{ chaos: 'failover', kind: 'redlock' }, 'Redlock nodes are independent primaries'],
    [{ chaos: 'failover', target: own }, '--chaos failover faults a server, and a race never faults one that is not a redlock-cli sandbox'],
    [{ chaos: 'latency', target: own }, '--chaos latency faults a server'],
    [{ chaos: 'clock', target: own }, '--chaos clock faults a server'],
    [{ chaos: 'partition', target: own }, '--chaos partition faults a server'],
    [{ kind: 'redlock', target: own }, 'needs --nodes'],
    [{ keys: [] }, 'at least one key'],
  ] as [Partial<RaceInput>, string][])('refuses %j', (change, message) => {
    expect(refusal(change)).toContain(message);
  });

  it("on a server of your own, only the faults that act on the race's own clients", () => {
    expect(checkRacePlan({ ...base, chaos: 'pause', target: own }).chaos).toBe('pause');
    expect(checkRacePlan({ ...base, chaos: 'kill-holder', target: own }).chaos).toBe('kill-holder');
  });

  it.each([
    ['reentrant', ['orders']],
    ['token', ['orders']],
    ['fenced', ['orders', 'redisson_lock_token:{orders}']],
    ['fair', ['orders', 'redisson_lock_queue:{orders}', 'redisson_lock_timeout:{orders}']],
  ] as const)('a %s race writes %j', (kind, keys) => {
    expect(keysRaceWrites(kind, 'orders')).toEqual(keys);
  });

  it('keeps chaos short of the next fault when the lease is long', () => {
    expect(checkRacePlan({ ...base, leaseMs: 5000, chaos: 'latency', chaosEveryMs: 1000 }).chaosForMs).toBe(500);
  });
});
