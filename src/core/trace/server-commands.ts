// What the traced server understands of the conditional writes, asked once when its feed starts
// (COMMAND DOCS SET, COMMAND INFO DELIFEQ DELEX), never guessed from a version number: Valkey
// reports redis_version 7.2.4 whatever its own version. MONITOR lists a command before the server
// rejects it, so `SET ... IFEQ` on a server without the option is a syntax error that wrote nothing.

export interface ServerCommands {
  /** SET's value conditions the server documents, upper case: IFEQ (Valkey 8.1), IFNE, ... (Redis 8.4). */
  readonly setConditions: ReadonlySet<string>;
  /** The conditional deletes it has, upper case: DELIFEQ (Valkey 9.0), DELEX (Redis 8.4, Valkey 9.2). */
  readonly deletes: ReadonlySet<string>;
}

export const CONDITIONAL_DELETES = ['DELIFEQ', 'DELEX'] as const;

/** The `IF...` tokens anywhere in a COMMAND DOCS reply's argument tree (nested arrays of names and values). */
export function conditionTokens(docs: unknown): Set<string> {
  const found = new Set<string>();
  const walk = (node: unknown): void => {
    if (!Array.isArray(node)) return;
    node.forEach((item, i) => {
      if (item === 'token' && typeof node[i + 1] === 'string' && /^IF/i.test(node[i + 1] as string)) found.add((node[i + 1] as string).toUpperCase());
      walk(item);
    });
  };
  walk(docs);
  return found;
}
