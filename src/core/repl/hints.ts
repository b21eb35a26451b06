// Messages tell a shell user what to run next ("release it with: redlock-cli release pay"). In the
// REPL the same command is typed without the program name, so the hint is shown as it is typed
// here. JSON on stdout is data, not a hint, and is left exactly as the command wrote it.

const PROGRAM_BEFORE_COMMAND = /\bredlock-cli (?=[a-z])/g;

/** A result line in JSON (`--json`, NDJSON): data to leave exactly as written. */
export const isJsonResult = (line: string, stream: 'stdout' | 'stderr'): boolean => stream === 'stdout' && /^\s*[[{]/.test(line);

/** `line` as a REPL user would type its suggested commands; JSON lines unchanged. */
export function asTypedInRepl(line: string, stream: 'stdout' | 'stderr'): string {
  if (isJsonResult(line, stream)) return line;
  return line.replace(PROGRAM_BEFORE_COMMAND, '');
}
