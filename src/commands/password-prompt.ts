import { InterruptedError } from '../core/errors.js';
import type { RunContext } from './context.js';

type RawInput = NodeJS.ReadableStream & { readonly isTTY?: boolean | undefined; setRawMode(raw: boolean): unknown };

/** The terminal we can ask on without echoing, if stdin is one. */
export function rawTerminal(ctx: RunContext): RawInput | undefined {
  const stdin = ctx.stdin as (RawInput & { setRawMode?: unknown }) | undefined;
  return stdin?.isTTY && typeof stdin.setRawMode === 'function' ? stdin : undefined;
}

/**
 * Reads a line from the terminal in raw mode, so the password is never echoed (not even as
 * asterisks, which would tell its length). Backspace edits, Enter ends, Ctrl-C or an abort
 * interrupts (exit 130). The question goes to stderr, leaving stdout to results.
 */
export function promptPassword(ctx: RunContext, stdin: RawInput, question: string): Promise<string> {
  ctx.stderr.write(question);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    let inEscape = false; // inside an arrow-key or function-key sequence: ESC [ ... letter
    const finish = (): void => {
      stdin.removeListener('data', onData);
      ctx.signal?.removeEventListener('abort', onAbort);
      stdin.setRawMode(false);
      stdin.pause();
      ctx.stderr.write('\n');
    };
    const onAbort = (): void => {
      finish();
      reject(new InterruptedError());
    };
    const onData = (chunk: string | Buffer): void => {
      for (const ch of String(chunk)) {
        if (inEscape || ch === '\u001b') {
          inEscape = ch === '\u001b' || ch === '[' || !/[A-Za-z~]/.test(ch);
          continue;
        }
        if (ch === '\r' || ch === '\n' || ch === '\u0004') {
          finish();
          resolve(value);
          return;
        }
        if (ch === '\u0003') {
          onAbort();
          return;
        }
        if (ch === '\u007f' || ch === '\b') value = Array.from(value).slice(0, -1).join('');
        else if (ch >= ' ') value += ch; // other control characters are not part of a password
      }
    };
    if (ctx.signal?.aborted) return onAbort();
    ctx.signal?.addEventListener('abort', onAbort, { once: true });
    stdin.on('data', onData);
  });
}
