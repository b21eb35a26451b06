// The fix command printed with every doctor finding: a line a person can paste into a shell and
// that reaches the same server. Printed, never run. Passwords are never printed; the user adds
// `--askpass` (redis-cli) or puts them in REDIS_URL (redlock-cli).

/** How printed commands reach the server doctor looked at. */
export interface FixTarget {
  /** redis-cli connection arguments of the node holding the key, e.g. `-h 10.0.0.5 -p 6380 -n 2`. */
  readonly redisCli: readonly string[];
  /** redlock-cli connection flags, e.g. `--url redis://10.0.0.5:6380/2`; empty for the default. */
  readonly redlockCli: readonly string[];
  /** Raw bytes of key names shown escaped because they are not valid UTF-8. */
  readonly binaryKeys?: ReadonlyMap<string, Uint8Array> | undefined;
}

/** A word of a command line: text, or raw bytes for key names that are not valid UTF-8. */
export type Word = string | Uint8Array;

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * Quotes one argument for POSIX shells: bare when safe, '...' otherwise, and bash/zsh $'\xNN'
 * when it holds bytes or control characters a quoted string cannot carry.
 */
export function shellQuote(word: Word): string {
  const bytes = typeof word === 'string' ? undefined : word;
  const text = typeof word === 'string' ? word : undefined;
  if (text !== undefined && SAFE.test(text)) return text;
  if (text !== undefined && !/[\x00-\x1f\x7f]/.test(text)) return `'${text.replace(/'/g, `'\\''`)}'`;
  const raw = bytes ?? new TextEncoder().encode(text);
  let out = '';
  for (const b of raw) {
    out += b >= 0x20 && b < 0x7f && b !== 0x27 && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return `$'${out}'`;
}

/** A key as a command word: its raw bytes when its display text is an escaped form. */
export function keyWord(target: FixTarget, key: string): Word {
  return target.binaryKeys?.get(key) ?? key;
}

const line = (program: string, words: readonly Word[]): string => [program, ...words.map(shellQuote)].join(' ');

const CONTROL = /[\x00-\x1f\x7f]/;

/** One argument in redis-cli's own syntax (double quotes, \xNN): any byte survives, NUL included. */
function redisQuote(word: Word): string {
  if (typeof word === 'string' && SAFE.test(word)) return word;
  const bytes = typeof word === 'string' ? new TextEncoder().encode(word) : word;
  let out = '';
  for (const b of bytes) out += b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x27 && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
  return `"${out}"`;
}

/**
 * `redis-cli <connection> <args...>`. A name that is not UTF-8, or holds control characters,
 * cannot travel as a shell argument (a NUL byte cannot at all): then the command goes to
 * redis-cli on stdin, where its parser reads "\xNN" escapes.
 */
export function redisCli(target: FixTarget, ...args: Word[]): string {
  if (args.every((w) => typeof w === 'string' && !CONTROL.test(w))) return line('redis-cli', [...target.redisCli, ...args]);
  return `printf '%s\\n' ${shellQuote(args.map(redisQuote).join(' '))} | ${line('redis-cli', target.redisCli)}`;
}

/** `redlock-cli <args...> <connection>` */
export function redlockCli(target: FixTarget, ...args: Word[]): string {
  return line('redlock-cli', [...args, ...target.redlockCli]);
}
