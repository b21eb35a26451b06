// Script digests of the libraries we decode, for EVALSHA lines whose body the trace never saw:
// clients load their scripts once per server (SCRIPT LOAD, or an EVAL ioredis-style) and then send
// only the SHA1, so a trace that starts later meets digests alone. digests.json is generated from
// the libraries' own sources (scripts/digest-catalogue.ts; docs/trace-digests.md says how and from
// which releases); each entry's intent is scriptIntent() of the body, as if the trace had seen it.

import data from './digests.json' with { type: 'json' };
import type { ScriptIntent } from './script-intent.js';

/** One script body of one library, known by the SHA1 its clients send with EVALSHA. */
export interface DigestEntry {
  readonly sha1: string;
  readonly library: string;
  readonly intent: ScriptIntent;
  /** The first and last scanned release that sends this body (tags or package versions). */
  readonly first: string;
  readonly last: string;
  /** Where the body was read, in the release `last`. */
  readonly file: string;
  readonly line: number;
  /** The method or constant that holds the script. */
  readonly near?: string;
}

export interface DigestCatalogue {
  readonly libraries: Readonly<Record<string, unknown>>;
  readonly digests: readonly DigestEntry[];
}

export const DIGEST_CATALOGUE = data as DigestCatalogue;

let bySha: Map<string, DigestEntry> | undefined;

/** The catalogue's entry for a script digest (any case), if one of our libraries sends it. */
export function knownDigest(sha1: string): DigestEntry | undefined {
  bySha ??= new Map(DIGEST_CATALOGUE.digests.map((d) => [d.sha1, d]));
  return bySha.get(sha1.toLowerCase());
}
