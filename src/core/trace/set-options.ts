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

/** Parses the options after `SET key value`. */
export function parseSetOptions(options: readonly string[]): SetOptions {
  let nx = false;
  let xx = false;
  let keepTtl = false;
  let pxMs: number | undefined;
  let atMs: number | undefined;
  let condition: SetCondition | undefined;
  for (let i = 0; i < options.length; i++) {
    const opt = options[i]!.toLowerCase();
    const n = Number(options[i + 1]);
    if (opt === 'nx') nx = true;
    else if (opt === 'xx') xx = true;
    else if (opt === 'keepttl') keepTtl = true;
    else if (opt === 'px') (pxMs = n), i++;
    else if (opt === 'ex') (pxMs = n * 1000), i++;
    else if (opt === 'pxat') (atMs = n), i++;
    else if (opt === 'exat') (atMs = n * 1000), i++;
    else if (CONDITIONS.has(opt)) (condition = { option: opt.toUpperCase(), value: options[i + 1] ?? '' }), i++;
  }
  return { nx, xx, keepTtl, ...(pxMs !== undefined ? { pxMs } : {}), ...(atMs !== undefined ? { atMs } : {}), ...(condition ? { condition } : {}) };
}

/** The lease a SET gives from server time `t` (absolute expiries converted); undefined: none. */
export function setLease(opts: SetOptions, t: number): number | undefined {
  return opts.pxMs ?? (opts.atMs !== undefined ? opts.atMs - t : undefined);
}
