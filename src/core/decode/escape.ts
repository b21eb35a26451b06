// Key names, owners and values come from anyone's data: control characters must never reach a
// terminal raw, and binary names must survive a round trip. Escapes follow redis-cli (\xNN).

import { escapeChar, safeText, UNSAFE_CLASS } from '../terminal-text.js';

// Controls and format characters (terminal-text.ts), plus what quoting needs: \\, " and U+FFFD
// (a lossy decode: the name was not what it shows).
const NEEDS_QUOTES = new RegExp(`[${UNSAFE_CLASS}\\\\"\\ufffd]`, 'u');
const QUOTE_ALL = new RegExp(NEEDS_QUOTES.source, 'gu');

/** Text safe to print: quoted with escapes when it holds control characters, unchanged otherwise. */
export function printable(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replace(QUOTE_ALL, (c) => (c === '\\' || c === '"' ? `\\${c}` : escapeChar(c)))}"` : text;
}

/** Only control characters escaped: for messages that quote names but are not names themselves. */
export const escapeControls = safeText;

/**
 * A key's bytes as text: UTF-8 when valid; otherwise printable ASCII kept and every other byte
 * as \xNN (already escaped: print it in quotes, not through printable), plus the exact hex.
 */
export function bytesToText(bytes: Uint8Array): { readonly text: string; readonly hex?: string } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    let text = '';
    let hex = '';
    for (const b of bytes) {
      const h = b.toString(16).padStart(2, '0');
      hex += h;
      text += b === 0x5c ? '\\\\' : b === 0x22 ? '\\"' : b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${h}`;
    }
    return { text, hex };
  }
}
