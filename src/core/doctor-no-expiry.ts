import { printable } from './decode/escape.js';
import { NO_TTL_BY_DESIGN } from './decode/token-library.js';
import type { LockView } from './lock-view.js';

/** Names the note lists before "and N more". */
const EXAMPLES = 3;

/**
 * One note, not a finding, for locks whose library takes them without TTL by default
 * (python-redis-lock): that is their normal state, so there is nothing to fix, yet a holder that
 * dies without releasing leaves one locked for good, which doctor cannot tell from a long job.
 */
export function noExpiryByDesignNote(views: readonly LockView[]): string | undefined {
  const keys = views
    .filter((v) => v.warnings.some((w) => w.code === NO_TTL_BY_DESIGN))
    .map((v) => printable(v.key))
    .sort();
  if (keys.length === 0) return undefined;
  const more = keys.length > EXAMPLES ? `, and ${(keys.length - EXAMPLES).toLocaleString('en-US')} more` : '';
  const count =
    keys.length === 1
      ? '1 python-redis-lock lock has'
      : `${keys.length.toLocaleString('en-US')} python-redis-lock locks have`;
  return `${count} no TTL, its default (${keys.slice(0, EXAMPLES).join(', ')}${more}): normal while the holder runs, but one whose holder died stays locked until redlock-cli force-unlock <key> --yes; give them expire= with auto_renewal=True to bound that`;
}
