// SET's options as a lock library sends them: NX / XX, PX / EX (relative), PXAT / EXAT
// (absolute), KEEPTTL. Absolute expiries are kept as such; the caller turns them into a lease.

export interface SetOptions {
  readonly nx: boolean;
  readonly xx: boolean;
  /** Relative lease in ms (PX, EX). */
  readonly pxMs?: number;
  /** Absolute expiry in epoch ms (PXAT, EXAT). */
  readonly atMs?: number;
  readonly keepTtl: boolean;
}

/** Parses the options after `SET key value`. */
export function parseSetOptions(options: readonly string[]): SetOptions {
  let nx = false;
  let xx = false;
  let keepTtl = false;
  let pxMs: number | undefined;
  let atMs: number | undefined;
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
  }
  return { nx, xx, keepTtl, ...(pxMs !== undefined ? { pxMs } : {}), ...(atMs !== undefined ? { atMs } : {}) };
}

/** The lease a SET gives from server time `t` (absolute expiries converted); undefined: none. */
export function setLease(opts: SetOptions, t: number): number | undefined {
  return opts.pxMs ?? (opts.atMs !== undefined ? opts.atMs - t : undefined);
}
