/** Exit codes shared by every command; documented in --help and the README. */
export const ExitCode = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  unreachable: 3,
  notFound: 4,
  notAcquired: 5,
  findings: 6,
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
  130  interrupted (Ctrl-C)`;
