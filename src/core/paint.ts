// How output is coloured, as plain functions, so pure formatters in core can mark what a person
// scans for (keys, holders, errors, warnings) without knowing about terminals or chalk. Every
// function receives text that already passed the escaping boundary (decode/escape.ts): colour is
// added around escaped text, never inside it, so a key cannot smuggle escape codes in.

export interface Paint {
  readonly key: (text: string) => string;
  readonly holder: (text: string) => string;
  readonly error: (text: string) => string;
  readonly warning: (text: string) => string;
}

const same = (text: string): string => text;

/** No colour: pipes, NO_COLOR, --no-color, tests. */
export const PLAIN: Paint = { key: same, holder: same, error: same, warning: same };
