/** Exit codes shared by every command; documented in --help and docs/safety.md. */
export const ExitCode = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  unreachable: 3,
  notFound: 4,
  notAcquired: 5,
  findings: 6,
  /** A scenario variant or a race did not reach its expected verdict (race: violations found). */
  verdictMismatch: 7,
  /**
   * A scenario variant or a race could not be judged: the machine was too busy for its timing,
   * or (race) nothing was acquired or lock calls failed. Never reported as safe.
   */
  inconclusive: 8,
  /** Some Cluster nodes could not be read: what was printed is incomplete. */
  partial: 9,
  /** The Redis user may not run a command this needs (ACL NOPERM), or the server renamed or disabled it. */
  permission: 10,
  interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export const EXIT_CODE_HELP = `Exit codes:
  0    success
  1    unexpected error (run with --debug for the stack)
  2    usage error: bad option, duration, kind, or a key of the wrong type
  3    Redis unreachable, authentication failed, or timed out
  4    key not found
  5    lock not acquired, or not owned by the caller
  6    doctor found problems
  7    scenario: a variant missed its expected verdict; race: safety violations found; trace: something unsafe seen (--fail-on liveness: or a deadlock, a starvation)
  8    scenario or race inconclusive, never called safe: the machine was too busy for its timing, or a race acquired nothing or had failed lock calls without --chaos
  9    partial: some Cluster nodes unreachable, results incomplete (ls, doctor, inspect)
  10   the Redis user may not run a command this needs (ACL), or the server disabled it: the message names the ACL rule to grant
  130  interrupted (Ctrl-C, SIGTERM, SIGHUP; still stopping 10 s later: 128 + the signal)
Under --json a failure is one JSON object on stderr: {"error":{"code":"not-found","exit":4,"message":"..."}}`;
