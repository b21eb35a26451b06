import { ExitCode, type ExitCodeValue } from './exit-codes.js';

/** An error the CLI reports as one line with a known exit code (no stack unless --debug). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, ExitCode.usage);
  }
}

/** Redis could not be reached, refused our credentials, or timed out. */
export class UnreachableError extends CliError {
  constructor(message: string) {
    super(message, ExitCode.unreachable);
  }
}

/**
 * The server refused a command: the user's ACL lacks it (NOPERM) or the server renamed or
 * disabled it (managed services do). `command` is how Redis names it, e.g. `client|list`.
 */
export class PermissionError extends CliError {
  constructor(
    message: string,
    readonly command: string,
    readonly disabled: boolean,
  ) {
    super(message, ExitCode.permission);
  }

  /** The same refusal, naming a source or mode that needs less (`or use --source keyspace, ...`). */
  orInstead(alternative: string): PermissionError {
    return new PermissionError(`${this.message}, or ${alternative}`, this.command, this.disabled);
  }
}

export class NotFoundError extends CliError {
  constructor(message: string) {
    super(message, ExitCode.notFound);
  }
}

/** The lock is held by someone else, or the caller does not own it. */
export class NotAcquiredError extends CliError {
  constructor(message: string) {
    super(message, ExitCode.notAcquired);
  }
}

/** The key exists but holds something other than what the chosen lock kind expects. */
export class WrongTypeError extends UsageError {}

export class InterruptedError extends CliError {
  constructor(message = 'interrupted') {
    super(message, ExitCode.interrupted);
  }
}
