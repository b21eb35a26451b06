// Turns a problem found in a scenario file into the one line a user sees:
// `scenarios/x.yaml:14:9: steps[3].do: unknown step "acquier"; expected one of ...`.
// Positions come from the YAML nodes (yaml's LineCounter), so they point at the offending value,
// or at the offending key for an unknown key, or at the enclosing mapping for a missing one.

import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter } from 'yaml';
import { UsageError } from '../core/errors.js';

export type Path = readonly PropertyKey[];

/** A problem with a path into the file's data; `key` points at the last segment's key rather than its value. */
export interface Problem {
  readonly path: Path;
  readonly message: string;
  readonly key?: boolean;
}

const PLAIN_KEY = /^[A-Za-z_][\w-]*$/;

/** `steps[3].do`, `sandbox.config.min-replicas-to-write`, `variants["odd name"]`. */
export function formatPath(path: Path): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (PLAIN_KEY.test(String(seg))) out += out === '' ? String(seg) : `.${String(seg)}`;
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out;
}

/**
 * Offset in the source of the node at `path` (its key with `key`); `exact` is false when the file
 * lacks it (a missing key) and the offset is the nearest ancestor's.
 */
export function offsetOf(doc: Document, path: Path, key = false): { offset: number; exact: boolean } {
  let node: unknown = doc.contents;
  let offset = rangeStart(node) ?? 0;
  for (let i = 0; i < path.length; i++) {
    if (isAlias(node)) node = node.resolve(doc);
    const seg = path[i];
    if (isMap(node)) {
      const pair = node.items.find((p) => String(isScalar(p.key) ? p.key.value : p.key) === String(seg));
      if (!pair) return { offset, exact: false };
      const keyStart = rangeStart(pair.key) ?? offset;
      // An empty value (`lease:`) has no node of its own worth pointing at: point at its key.
      if ((key && i === path.length - 1) || isEmpty(pair.value)) return { offset: keyStart, exact: true };
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      node = node.items[seg];
    } else {
      return { offset, exact: false };
    }
    const start = rangeStart(node);
    if (start === undefined) return { offset, exact: false };
    offset = start;
  }
  return { offset, exact: true };
}

/** `lease:` with nothing after it: yaml gives it an empty null scalar where the value would start. */
function isEmpty(node: unknown): boolean {
  if (node === null || rangeStart(node) === undefined) return true;
  return isScalar(node) && node.value === null && node.source === '';
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as { range?: readonly number[] } | null | undefined)?.range;
  return range?.[0];
}

/** `file:line:col` of an offset. */
export function where(file: string, lines: LineCounter, offset: number): string {
  const { line, col } = lines.linePos(offset);
  return `${file}:${line}:${col}`;
}

/** The UsageError for the problem that comes first in the file (one line: file:line:col: path: message). */
export function problemError(file: string, doc: Document, lines: LineCounter, problems: readonly Problem[]): UsageError {
  // First in file order; problems with a place of their own before missing keys, so a misspelt
  // key (`titel`) is reported as unknown rather than as the required key it leaves missing.
  const located = problems.map((p, i) => ({ p, i, ...offsetOf(doc, p.path, p.key) }));
  located.sort((a, b) => Number(b.exact) - Number(a.exact) || a.offset - b.offset || a.i - b.i);
  const first = located[0]!;
  const path = formatPath(first.p.key ? first.p.path.slice(0, -1) : first.p.path);
  return new UsageError(`${where(file, lines, first.offset)}: ${path === '' ? '' : `${path}: `}${oneLine(first.p.message)}`);
}

/** Messages from yaml or zod can span lines; the CLI prints one. */
export function oneLine(message: string): string {
  return message.split('\n')[0]!.trim();
}
