import type { LockWarning, TokenFacts } from '../lock-view.js';
import { shedLockFacts } from './shedlock.js';
import { springFacts } from './spring.js';
import type { TokenLibrary } from './token-library.js';

/** Reads what a library stores beside its owner id, and says what is normal for its locks. */
type FactsReader = (key: string, value: string, warnings: LockWarning[], nowMs: number) => TokenFacts;

/** One entry per library whose token carries more than an opaque id (docs/lock-formats.md). */
export const TOKEN_FACTS: Partial<Record<TokenLibrary, FactsReader>> = {
  spring: springFacts,
  shedlock: shedLockFacts,
};
