/** Key names that say "lock" (the recogniser calls a TTL'd string under one a token lock of unknown format). */
export const LOCK_LIKE = /lock|mutex|sema|latch|leader|lease|mutual/i;
