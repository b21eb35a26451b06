// The environment of the command under the lock: ours, less the passwords we were given (the
// command is someone else's program and has no business with our Redis credentials), plus the
// lock it runs under.

export interface LockIdentity {
  readonly key: string;
  readonly kind: string;
  readonly owner: string;
  readonly token?: number | undefined;
}

/** The variables the command sees: which lock it runs under, and the fencing token to pass on. */
export function lockEnvVars(lock: LockIdentity): Record<string, string> {
  return {
    REDLOCK_KEY: lock.key,
    REDLOCK_OWNER: lock.owner,
    REDLOCK_KIND: lock.kind,
    ...(lock.token !== undefined ? { REDLOCK_TOKEN: String(lock.token) } : {}),
  };
}

// Where passwords reach us: redis-cli's REDISCLI_AUTH (read by our connection flags), a saved
// target's REDLOCK_PASSWORD_<NAME>, the common REDIS_PASSWORD, and a URL with user:password@.
const SECRET_NAMES = /^(REDISCLI_AUTH|REDIS_PASSWORD|REDLOCK_PASSWORD_.*)$/;
const URL_NAMES = /^(REDIS_URL)$/;
const URL_WITH_PASSWORD = /\/\/[^/@\s]*:[^/@\s]*@/;

/** A copy of `env` without the variables that carry a Redis password. */
export function withoutPasswords(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const kept: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(env)) {
    if (SECRET_NAMES.test(name)) continue;
    if (URL_NAMES.test(name) && value !== undefined && URL_WITH_PASSWORD.test(value)) continue;
    kept[name] = value;
  }
  return kept;
}

/** What the command under the lock runs with. */
export function commandEnv(env: Readonly<Record<string, string | undefined>>, lock: LockIdentity): Record<string, string | undefined> {
  return { ...withoutPasswords(env), ...lockEnvVars(lock) };
}
