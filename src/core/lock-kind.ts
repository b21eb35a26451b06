import { UsageError } from './errors.js';
import { unknownChoiceMessage } from './foreign-names.js';

/** Every lock protocol the tool speaks, as `--kind` names it. */
export const LOCK_KINDS = [
  'reentrant', 'fair', 'read', 'write', 'spin', 'fenced', 'token', 'redlock',
  'spring', 'shedlock', 'python-redis-lock', 'bsm-redislock', 'redis-py', 'multi-lock',
] as const;
export type LockKind = (typeof LOCK_KINDS)[number];

/** A --kind value checked against LOCK_KINDS; pure, so checking a flag loads no protocol. */
export function parseKind(text: string): LockKind {
  if ((LOCK_KINDS as readonly string[]).includes(text)) return text as LockKind;
  throw new UsageError(unknownChoiceMessage('lock kind', text, LOCK_KINDS));
}
