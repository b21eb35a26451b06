// The `steps:` entries of a scenario file. A step is a client action (`client` + `do`), a sandbox
// fault (`fault`) or a note (`note`); each action and fault has its own strict mapping, so an
// option that does not belong to it (`lease` on `enter`) is an unknown key, not silently ignored.

import { z } from 'zod';
import { parseClockChange } from '../sandbox/clock.js';
import type { ClientStep, FaultStep, Step, WaitFor, WaitStep } from './model.js';
import {
  count,
  DEFAULTS,
  delegate,
  describeInput,
  duration,
  durationText,
  expected,
  flag,
  isRecord,
  list,
  lockKind,
  name,
  nodeName,
  offset,
  oneOf,
  opt,
  strict,
  text,
} from './schema-values.js';

export const CLIENT_STEPS = ['acquire', 'release', 'renew', 'enter', 'leave', 'write', 'incr', 'pause', 'crash', 'partition', 'heal'] as const;
export type ClientStepName = (typeof CLIENT_STEPS)[number];
export const FAULTS = ['kill', 'restart', 'pause', 'resume', 'failover', 'stall-replication', 'clock', 'latency', 'partition', 'heal', 'flush'] as const;
export type FaultName = (typeof FAULTS)[number];

export const ACQUIRE_MODES = ['atomic', 'setnx-then-expire', 'resend-on-timeout'] as const;
export const RELEASE_MODES = ['safe', 'naive-del', 'get-then-del'] as const;
export const RENEW_MODES = ['safe', 'reset'] as const;
export const RENEW_READERS = ['own', 'all'] as const;
/** What a wait step can wait for (model.ts WaitFor). */
export const WAIT_EVENTS = ['expired', 'reply'] as const;
type WaitEvent = (typeof WAIT_EVENTS)[number];

/** `only: fixed` or `only: [unsafe, fixed]`: the variants a step belongs to. */
const only = z.union([z.string(), z.array(z.unknown())], { error: expected('a variant name or a list of them') }).transform((v, ctx) => {
  const names = Array.isArray(v) ? v : [v];
  if (names.length === 0) ctx.addIssue({ code: 'custom', message: 'expected at least one variant name (leave out only: for every variant)', input: v });
  names.forEach((n, i) => {
    if (typeof n !== 'string') ctx.addIssue({ code: 'custom', message: `expected a variant name, got ${describeInput(n)}`, path: Array.isArray(v) ? [i] : [], input: n });
  });
  return names.map(String);
});

const at = offset;
const common = { at, only: only.optional() };
const clientCommon = { ...common, client: name('client') };

/** The fields every client step has, from a parsed mapping. */
const head = (s: { at: number; only?: string[] | undefined; client: string }) => ({ at: s.at, ...opt('only', s.only), client: s.client });

type Ctx = z.core.$RefinementCtx<unknown>;
const issue = (ctx: Ctx, path: string, message: string): void => ctx.addIssue({ code: 'custom', message, path: [path] });

const acquire = strict(
  {
    ...clientCommon,
    do: z.literal('acquire'),
    lease: duration.optional(),
    'watchdog-lease': duration.optional(),
    'max-renewals': count(0).optional(),
    wait: offset.optional(),
    kind: lockKind.optional(),
    mode: oneOf(ACQUIRE_MODES, 'acquire mode').optional(),
    gap: offset.optional(),
    timeout: duration.optional(),
    'wait-replicas': count(1).optional(),
    'check-validity': flag.optional(),
    'stop-on-lost': flag.optional(),
    'fair-wait-timeout': duration.optional(),
    'writer-preference': flag.optional(),
    'renew-readers': oneOf(RENEW_READERS, 'renew-readers').optional(),
  },
  ' in an acquire step',
).transform((s, ctx): ClientStep => {
  const mode = s.mode ?? 'atomic';
  if (s.lease !== undefined) {
    // A fixed lease and a watchdog exclude each other: the watchdog is what renews a lease left out.
    if (s['watchdog-lease'] !== undefined) issue(ctx, 'watchdog-lease', 'goes with a watchdog acquire (no lease:); drop one of lease and watchdog-lease');
    if (s['max-renewals'] !== undefined) issue(ctx, 'max-renewals', 'goes with a watchdog acquire (no lease:); drop one of lease and max-renewals');
  }
  if (s.gap !== undefined && mode !== 'setnx-then-expire') issue(ctx, 'gap', 'goes with mode: setnx-then-expire (the time between SETNX and EXPIRE)');
  if (s.timeout !== undefined && mode !== 'resend-on-timeout') issue(ctx, 'timeout', 'goes with mode: resend-on-timeout (how long the client waits for a reply)');
  if (s.timeout === undefined && mode === 'resend-on-timeout') issue(ctx, 'mode', 'resend-on-timeout needs timeout: <duration> (how long the client waits for a reply)');
  return {
    ...head(s),
    do: 'acquire',
    ...opt('leaseMs', s.lease),
    watchdogLeaseMs: s['watchdog-lease'] ?? DEFAULTS.watchdogLeaseMs,
    ...opt('maxRenewals', s['max-renewals']),
    waitMs: s.wait ?? 0,
    ...opt('kind', s.kind),
    mode,
    ...opt('gapMs', mode === 'setnx-then-expire' ? (s.gap ?? 0) : undefined),
    ...opt('timeoutMs', s.timeout),
    ...opt('waitReplicas', s['wait-replicas']),
    checkValidity: s['check-validity'] ?? true,
    ...opt('stopOnLost', s['stop-on-lost']),
    ...opt('fairWaitTimeoutMs', s['fair-wait-timeout']),
    ...opt('writerPreference', s['writer-preference']),
    ...opt('renewReaders', s['renew-readers']),
  };
});

const release = strict(
  { ...clientCommon, do: z.literal('release'), mode: oneOf(RELEASE_MODES, 'release mode').optional(), gap: offset.optional() },
  ' in a release step',
).transform((s, ctx): ClientStep => {
  const mode = s.mode ?? 'safe';
  if (s.gap !== undefined && mode !== 'get-then-del') issue(ctx, 'gap', 'goes with mode: get-then-del (the time between GET and DEL)');
  return { ...head(s), do: 'release', mode, ...opt('gapMs', mode === 'get-then-del' ? (s.gap ?? 0) : undefined) };
});

const renew = strict(
  { ...clientCommon, do: z.literal('renew'), mode: oneOf(RENEW_MODES, 'renew mode').optional(), lease: duration.optional(), background: flag.optional() },
  ' in a renew step',
).transform((s): ClientStep => ({ ...head(s), do: 'renew', mode: s.mode ?? 'safe', ...opt('leaseMs', s.lease), ...(s.background ? { background: true } : {}) }));

const bare = <D extends 'enter' | 'leave' | 'crash' | 'heal'>(d: D) =>
  strict({ ...clientCommon, do: z.literal(d) }, ` in a${d === 'enter' ? 'n' : ''} ${d} step`).transform((s): ClientStep => ({ ...head(s), do: d }) as ClientStep);

const CLIENT_SCHEMAS: Record<ClientStepName, z.ZodType<ClientStep>> = {
  acquire,
  release,
  renew,
  enter: bare('enter'),
  leave: bare('leave'),
  crash: bare('crash'),
  heal: bare('heal'),
  write: strict(
    {
      ...clientCommon,
      do: z.literal('write'),
      value: z.number({ error: expected('a whole number') }).int({ error: (iss) => `expected a whole number, got ${describeInput(iss.input)}` }),
    },
    ' in a write step',
  ).transform((s): ClientStep => ({ ...head(s), do: 'write', value: s.value })),
  incr: strict({ ...clientCommon, do: z.literal('incr'), gap: offset.optional() }, ' in an incr step').transform(
    (s): ClientStep => ({ ...head(s), do: 'incr', gapMs: s.gap ?? 0 }),
  ),
  pause: strict({ ...clientCommon, do: z.literal('pause'), for: duration }, ' in a pause step').transform((s): ClientStep => ({ ...head(s), do: 'pause', forMs: s.for })),
  partition: strict({ ...clientCommon, do: z.literal('partition'), nodes: list(nodeName, 'node names').optional() }, ' in a partition step').transform(
    (s, ctx): ClientStep => {
      if (s.nodes?.length === 0) issue(ctx, 'nodes', 'expected at least one node (leave out nodes: to cut the client off from all of them)');
      return { ...head(s), do: 'partition', ...opt('nodes', s.nodes) };
    },
  ),
};

/** What each fault verb takes besides `node`: a value (clock, latency), a duration (pause, stall), amnesia (restart). */
const FAULT_OPTIONS: Record<FaultName, { node: boolean; value?: 'clock' | 'latency'; for?: boolean; amnesia?: boolean }> = {
  kill: { node: true },
  restart: { node: true, amnesia: true },
  pause: { node: true, for: true },
  resume: { node: true },
  failover: { node: false },
  'stall-replication': { node: true, for: true },
  clock: { node: true, value: 'clock' },
  latency: { node: true, value: 'latency' },
  partition: { node: true },
  heal: { node: true },
  flush: { node: true },
};

/** `+5s`, `-2s`, `x10`: checked by the sandbox's own parser, kept as written for the clock verb. */
const clockChange = z.string({ error: expected('a clock change like +5s, -2s or x10') }).transform((v, ctx) => {
  try {
    parseClockChange(v);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message, input: v });
  }
  return v.trim();
});

function faultSchema(verb: FaultName): z.ZodType<FaultStep> {
  const o = FAULT_OPTIONS[verb];
  const value = o.value === 'clock' ? clockChange : durationText;
  return strict(
    {
      ...common,
      fault: z.literal(verb),
      ...(o.node ? { node: nodeName } : {}),
      ...(o.value ? { value } : {}),
      ...(o.for ? { for: duration.optional() } : {}),
      ...(o.amnesia ? { amnesia: flag.optional() } : {}),
    },
    ` in a ${verb} fault`,
  ).transform((s) => {
    const r = s as { at: number; only?: string[]; node?: string; value?: string; for?: number; amnesia?: boolean };
    return {
      at: r.at,
      ...opt('only', r.only),
      fault: verb,
      ...opt('node', r.node),
      ...opt('value', r.value),
      ...opt('forMs', r.for),
      ...opt('amnesia', r.amnesia),
    };
  });
}

const FAULT_SCHEMAS = Object.fromEntries(FAULTS.map((f) => [f, faultSchema(f)])) as Record<FaultName, z.ZodType<FaultStep>>;

const note = strict({ ...common, note: text }, ' in a note').transform((s) => ({ at: s.at, ...opt('only', s.only), note: s.note }));

const WAIT_SCHEMAS: Record<WaitEvent, z.ZodType<WaitFor>> = {
  expired: strict({ until: z.literal('expired'), key: text.optional(), node: nodeName.optional(), timeout: duration.optional() }, ' in a wait until expired').transform(
    (w): WaitFor => ({ until: 'expired', ...opt('key', w.key), ...opt('node', w.node), ...opt('timeoutMs', w.timeout) }),
  ),
  reply: strict({ until: z.literal('reply'), client: name('client'), timeout: duration.optional() }, ' in a wait until reply').transform(
    (w): WaitFor => ({ until: 'reply', client: w.client, ...opt('timeoutMs', w.timeout) }),
  ),
};

/** `{until: expired, key?, node?, timeout?}` or `{until: reply, client, timeout?}`, dispatched on `until`. */
const waitFor = z.unknown().transform((raw, ctx): WaitFor => {
  if (!isRecord(raw)) {
    ctx.addIssue({ code: 'custom', message: `expected a mapping like {until: expired} or {until: reply, client: A}, got ${describeInput(raw)}`, input: raw });
    return z.NEVER;
  }
  const until = oneOf(WAIT_EVENTS, 'wait event');
  const event = until.safeParse(raw.until, { reportInput: true });
  if (!event.success) return (delegate(z.object({ until }), raw, ctx), z.NEVER);
  return delegate(WAIT_SCHEMAS[event.data], raw, ctx);
});

const wait = strict({ ...common, wait: waitFor }, ' in a wait step').transform((s): WaitStep => ({ at: s.at, ...opt('only', s.only), wait: s.wait }));

const KIND_HINT = 'client + do (a client action), fault (a sandbox fault), wait (for an event) or note';

/** One entry of `steps:`, dispatched on which of client / do, fault, note it has. */
export const stepSchema = z.unknown().transform((raw, ctx): Step => {
  if (!isRecord(raw)) {
    ctx.addIssue({ code: 'custom', message: `expected a step mapping like {at: 0ms, client: A, do: acquire}, got ${describeInput(raw)}`, input: raw });
    return z.NEVER;
  }
  const isClient = 'client' in raw || 'do' in raw;
  // `wait` is also an acquire's option (how long to wait for the lock): with client / do it is that.
  const kinds = (['client', 'fault', 'wait', 'note'] as const).filter((k) => (k === 'client' ? isClient : k === 'wait' ? !isClient && k in raw : k in raw));
  if (kinds.length !== 1) {
    const message = kinds.length === 0 ? `a step needs ${KIND_HINT}` : `a step is one of ${KIND_HINT}, not ${kinds.join(' and ')} at once`;
    ctx.addIssue({ code: 'custom', message, input: raw });
    return z.NEVER;
  }
  if (kinds[0] === 'note') return delegate(note, raw, ctx);
  if (kinds[0] === 'wait') return delegate(wait, raw, ctx);
  if (kinds[0] === 'fault') {
    const verb = oneOf(FAULTS, 'fault').safeParse(raw.fault, { reportInput: true });
    // Only to report the unknown verb at `fault` (the schema to check the rest with depends on it).
    if (!verb.success) return (delegate(z.object({ fault: oneOf(FAULTS, 'fault') }), raw, ctx), z.NEVER);
    return delegate(FAULT_SCHEMAS[verb.data], raw, ctx);
  }
  const verb = oneOf(CLIENT_STEPS, 'step').safeParse(raw.do, { reportInput: true });
  if (!verb.success) return (delegate(z.object({ do: oneOf(CLIENT_STEPS, 'step') }), raw, ctx), z.NEVER);
  return delegate(CLIENT_SCHEMAS[verb.data], raw, ctx);
});
