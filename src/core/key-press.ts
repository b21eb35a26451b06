// What one keyboard event of a live view or the REPL means. ink's input reader splits the raw
// bytes into events (a key, an escape sequence, or a run of pasted text); this names the few keys
// the views act on and returns undefined for everything else. A terminal also writes its own
// reports on stdin (a cursor position `ESC [ 6 n` echoed back, device status `ESC [ 0 n`, focus
// events): those, and any sequence not listed here, are nothing to act on, never typed text.

/** The named keys the views handle; letters and pasted text arrive as `text`. */
export type KeyName = 'up' | 'down' | 'left' | 'right' | 'home' | 'end' | 'return' | 'tab' | 'backspace' | 'delete' | 'escape';

export interface KeyPress {
  readonly name?: KeyName;
  /** Typed or pasted text; for Ctrl-<letter>, the letter. */
  readonly text: string;
  readonly ctrl: boolean;
  /** Alt / Option: ESC followed by a character. */
  readonly meta: boolean;
}

const ESC = '\x1b';

// CSI and SS3 final bytes of the keys above (xterm, VT220, rxvt, the Linux console).
const FINAL: Readonly<Record<string, KeyName>> = { A: 'up', B: 'down', C: 'right', D: 'left', H: 'home', F: 'end' };
const TILDE: Readonly<Record<string, KeyName>> = { '1': 'home', '7': 'home', '4': 'end', '8': 'end', '3': 'delete' };
const SINGLE: Readonly<Record<string, KeyName>> = { '\r': 'return', '\t': 'tab', '\x7f': 'backspace', '\b': 'backspace', [ESC]: 'escape' };

// ESC [ A, ESC O A, ESC [ 1 ; 5 A (a modifier: 5 = Ctrl), ESC [ 3 ~, ESC [ 3 ; 5 ~.
const CSI_LETTER = /^\x1b[[O](?:1;(\d+))?([A-DFH])$/;
const CSI_TILDE = /^\x1b\[(\d+)(?:;(\d+))?~$/;

/** Ctrl is bit 4 of an xterm modifier parameter minus one; Alt is bit 2. */
function modifiers(param: string | undefined): { ctrl: boolean; meta: boolean } {
  const bits = param === undefined ? 0 : Number(param) - 1;
  return { ctrl: (bits & 4) !== 0, meta: (bits & 2) !== 0 };
}

/** The key an input event stands for, or undefined for one the views do not act on. */
export function decodeKey(event: string): KeyPress | undefined {
  if (event === '') return undefined;
  const single = SINGLE[event];
  if (single) return { name: single, text: '', ctrl: false, meta: false };
  if (event.length === 1 && event < ' ') return { text: String.fromCharCode(event.charCodeAt(0) + 96), ctrl: true, meta: false };
  if (!event.startsWith(ESC)) return { text: event, ctrl: false, meta: false };
  const letter = CSI_LETTER.exec(event);
  if (letter) return { name: FINAL[letter[2]!]!, text: '', ...modifiers(letter[1]) };
  const tilde = CSI_TILDE.exec(event);
  const tildeName = tilde ? TILDE[tilde[1]!] : undefined;
  if (tildeName) return { name: tildeName, text: '', ...modifiers(tilde![2]) };
  // Alt with one printable character (ESC q); ESC ESC is Alt-Escape.
  const rest = event.slice(1);
  if (rest === ESC) return { name: 'escape', text: '', ctrl: false, meta: true };
  if ([...rest].length === 1 && rest >= ' ' && rest !== '\x7f') return { text: rest, ctrl: false, meta: true };
  return undefined;
}
