// SET's options as a lock library sends them: NX / XX, PX / EX (relative), PXAT / EXAT
// (absolute), KEEPTTL, and a value condition (IFEQ on Valkey 8.1+; IFNE, IFDEQ, IFDNE on Redis
// 8.4): its comparison value is consumed, so a value spelled like an option is not read as one.
// GET only changes the reply. Absolute expiries are kept as such; the caller turns them into a lease.

export interface SetOptions {
  readonly nx: boolean;
  readonly xx: boolean;
  /** Relative lease in ms (PX, EX). */
  readonly pxMs?: number;
  /** Absolute expiry in epoch ms (PXAT, EXAT). */
  readonly atMs?: number;
  readonly keepTtl: boolean;
  /** A value condition (IFEQ, IFNE, IFDEQ, IFDNE) and its comparison value: the SET may not apply. */
  readonly condition?: SetCondition;
}

export interface SetCondition {
  /** Upper case, as COMMAND DOCS names it. */
  readonly option: string;
  readonly value: string;
}

const CONDITIONS = new Set(['ifeq', 'ifne', 'ifdeq', 'ifdne']);

/** Parses the options of a SET, `args[from]` on (`SET key value` from 3); runs for every SET of a log. */
export function parseSetOptions(args: readonly string[], from = 0): SetOptions {
  const opts: { -readonly [K in keyof SetOptions]: SetOptions[K] } = { nx: false, xx: false, keepTtl: false };
  for (let i = from; i < args.length; i++) {
    const opt = args[i]!.toLowerCase();
    if (opt === 'nx') opts.nx = true;
    else if (opt === 'xx') opts.xx = true;
    else if (opt === 'keepttl') opts.keepTtl = true;
    else if (opt === 'px') opts.pxMs = Number(args[++i]);
    else if (opt === 'ex') opts.pxMs = Number(args[++i]) * 1000;
    else if (opt === 'pxat') opts.atMs = Number(args[++i]);
    else if (opt === 'exat') opts.atMs = Number(args[++i]) * 1000;
    else if (CONDITIONS.has(opt)) opts.condition = { option: opt.toUpperCase(), value: args[++i] ?? '' };
  }
  return opts;
}

/** The lease a SET gives from server time `t` (absolute expiries converted); undefined: none. */
export function setLease(opts: SetOptions, t: number): number | undefined {
  return opts.pxMs ?? (opts.atMs !== undefined ? opts.atMs - t : undefined);
}
