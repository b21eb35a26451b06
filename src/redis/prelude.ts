// The part of `lua/_prelude.lua` one script needs. Redis runs a script's whole text on every call,
// so each helper it carries is a closure built per call: a token acquire that only calls
// redlock_wrong_type, on its refusal path, should not build the fair-lock helpers as well.

interface Chunk {
  /** The locals the chunk defines (`local function name`, `local NAME =`); none for comments. */
  readonly names: readonly string[];
  readonly text: string;
}

/** The prelude split at blank lines: a helper with its comment, or a group of constants. */
function chunks(prelude: string): Chunk[] {
  return prelude.split(/\n\s*\n/).map((text) => ({
    names: [...text.matchAll(/^local (?:function )?([A-Za-z_][A-Za-z0-9_]*)/gm)].map((m) => m[1]!),
    text,
  }));
}

const mentions = (text: string, name: string): boolean => new RegExp(`\\b${name}\\b`).test(text);

/** The prelude's definitions `body` uses, directly or through another helper, in prelude order. */
export function preludeFor(prelude: string, body: string): string {
  const all = chunks(prelude);
  const needed = new Set<Chunk>();
  const visit = (text: string): void => {
    for (const chunk of all) {
      if (needed.has(chunk) || !chunk.names.some((name) => mentions(text, name))) continue;
      needed.add(chunk);
      visit(chunk.text);
    }
  };
  visit(body);
  return all
    .filter((chunk) => needed.has(chunk))
    .map((chunk) => chunk.text)
    .join('\n\n');
}
