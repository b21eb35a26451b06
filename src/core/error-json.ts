// The error object every command prints on stderr under --json, in place of its error line:
// `{"error":{"code":"not-found","exit":4,"message":"..."}}`. Its schema is docs/json/error.schema.json.
import { ExitCode, type ExitCodeValue } from './exit-codes.js';

/** `notFound` -> `not-found`: the error codes are the exit code names, in the case of doctor's codes. */
const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Each exit code's name, the `code` a script switches on (stable within the contract's version). */
export const ERROR_CODES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(ExitCode).map(([name, exit]) => [exit, kebab(name)]),
);

export interface ErrorJson {
  readonly error: {
    readonly code: string;
    readonly exit: number;
    readonly message: string;
    /** Only with --debug, for an unexpected error. */
    readonly stack?: string | undefined;
  };
}

/** The error object of an exit code and its one-line message (unescaped: JSON.stringify escapes it). */
export function errorJson(exit: ExitCodeValue, message: string, stack?: string): ErrorJson {
  return { error: { code: ERROR_CODES[exit] ?? 'unexpected', exit, message, ...(stack !== undefined ? { stack } : {}) } };
}
