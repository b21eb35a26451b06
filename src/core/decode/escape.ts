// Key names, owners and values come from anyone's data: control characters must never reach a
// terminal raw, and binary names must survive a round trip. Escapes follow redis-cli (\xNN).

const NEEDS_ESCAPE = /[\x00-\x1f\x7f-\x9f\\"\u2028\u2029\ufffd]/;
const ESCAPE_ALL = new RegExp(NEEDS_ESCAPE.source, 'g');

function escapeChar(c: string): string {
  if (c === '\\' || c === '"') return `\\${c}`;
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Text safe to print: quoted with escapes when it holds control characters, unchanged otherwise. */
export function printable(text: string): string {
  return NEEDS_ESCAPE.test(text) ? `"${text.replace(ESCAPE_ALL, escapeChar)}"` : text;
}

const CONTROLS = /[\x00-\x1f\x7f-\x9f\u2028\u2029]/g;

/** Only control characters escaped: for messages that quote names but are not names themselves. */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, escapeChar);
}

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
