// Reads scenario files: the shipped catalogue in the package's scenarios/ directory, or a user's
// file by path. Loading is pure apart from reading the file: nothing starts before a file has
// passed the schema and the cross-field checks. Every problem is a UsageError (exit 2) of one
// line with file:line:col and the field path; a missing file or name is a NotFoundError (exit 4).

import { readdir, readFile } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isScalar, LineCounter, parseDocument, visit, type Document, type YAMLError } from 'yaml';
import { NotFoundError, UsageError } from '../core/errors.js';
import { crossCheck } from './checks.js';
import { oneLine, problemError, where, type Problem } from './locate.js';
import type { Scenario } from './model.js';
import { scenarioFileSchema, type ScenarioFile } from './schema.js';
import { safeProse, safeText } from '../core/terminal-text.js';

const EXTENSIONS = ['.yaml', '.yml'] as const;

/** The shipped catalogue: `<package>/scenarios`, beside both src/ and dist/ (this module is in <root>/{src,dist}/scenario/). */
export function scenariosDir(): string {
  return fileURLToPath(new URL('../../scenarios/', import.meta.url));
}

/** Parses and validates one scenario file's text; `file` names it in errors and becomes `scenario.file`. */
export function parseScenario(text: string, file: string): Scenario {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax) throw new UsageError(`${where(file, lines, syntax.pos[0])}: invalid YAML: ${syntaxMessage(doc, syntax)}`);

  const raw = toData(doc, lines, file);
  const parsed = scenarioFileSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i): Problem => {
      if (i.code === 'unrecognized_keys') return { path: [...i.path, i.keys[0] ?? ''], message: i.message, key: true };
      return { path: i.path, message: i.message, ...(i.code === 'custom' && i.params?.key === true ? { key: true } : {}) };
    });
    throw problemError(file, doc, lines, problems);
  }
  const problems = crossCheck(parsed.data, raw);
  if (problems.length > 0) throw problemError(file, doc, lines, problems);

  const data = readable(parsed.data);
  // Sorted once here so the runner can take them in order; sort is stable, so ties keep file order.
  const steps = [...data.steps].sort((a, b) => a.at - b.at);
  return { name: basename(file, extname(file)), file, ...data, steps };
}

/**
 * What the file says for people to read (title, summary, narration, descriptions, notes, sources)
 * is only ever shown, by list, show, run, the live views and the REPL: it is escaped once, here,
 * so no terminal code in a file reaches a screen. Keys and values keep their bytes: they go to Redis.
 */
function readable(f: ScenarioFile): ScenarioFile {
  return {
    ...f,
    title: safeText(f.title),
    summary: safeText(f.summary),
    narration: safeProse(f.narration),
    sources: f.sources.map(safeText),
    lookFor: f.lookFor.map(safeText),
    variants: f.variants.map((v) => ({ ...v, description: safeText(v.description) })),
    steps: f.steps.map((s) => ('note' in s ? { ...s, note: safeText(s.note) } : s)),
  };
}

/** yaml's message, in the file's terms where yaml speaks to programmers. */
function syntaxMessage(doc: Document, err: YAMLError): string {
  if (err.code === 'MULTIPLE_DOCS') return 'a scenario file holds one document; remove the second --- and what follows it, or split the file';
  if (err.code === 'DUPLICATE_KEY') {
    let name: string | undefined;
    visit(doc, {
      Pair(_, pair) {
        if (!isScalar(pair.key) || pair.key.range?.[0] !== err.pos[0]) return undefined;
        name = String(pair.key.value);
        return visit.BREAK;
      },
    });
    if (name !== undefined) return `key "${name}" appears twice in the same mapping`;
  }
  return oneLine(err.message);
}

/** The file's plain data; an alias without its anchor is only found here, so it is reported here too. */
function toData(doc: Document, lines: LineCounter, file: string): unknown {
  try {
    return doc.toJS();
  } catch (err) {
    let offset = 0;
    let anchor = '';
    visit(doc, {
      Alias(_, node) {
        if (node.resolve(doc) !== undefined) return undefined;
        offset = node.range?.[0] ?? 0;
        anchor = node.source;
        return visit.BREAK;
      },
    });
    const why = anchor ? `alias *${anchor} has no anchor &${anchor} before it` : oneLine((err as Error).message);
    throw new UsageError(`${where(file, lines, offset)}: invalid YAML: ${why}`);
  }
}

/** Reads and validates a scenario file by path. */
export async function loadScenario(path: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new NotFoundError(`scenario file not found: ${path}`);
    if (code === 'EISDIR') throw new UsageError(`${path} is a directory, not a scenario file`);
    throw new UsageError(`cannot read scenario file ${path}: ${code ?? (err as Error).message}`);
  }
  return parseScenario(text, path);
}

/** Whether the argument is a file path (has a `/` or ends in .yaml / .yml) rather than a shipped scenario's name. */
export function isScenarioPath(nameOrPath: string): boolean {
  return nameOrPath.includes('/') || nameOrPath.includes(sep) || EXTENSIONS.some((e) => nameOrPath.toLowerCase().endsWith(e));
}

/** A shipped scenario by name (`expired-lease-misdeletion`), or any file by path (`./my-race.yaml`). */
export async function resolveScenario(nameOrPath: string, dir = scenariosDir()): Promise<Scenario> {
  if (nameOrPath.trim() === '') throw new UsageError('name a scenario (redlock-cli scenario list shows them) or give a path to a .yaml file');
  if (isScenarioPath(nameOrPath)) return loadScenario(nameOrPath);
  const files = await shippedFiles(dir);
  const file = files.find((f) => basename(f, extname(f)) === nameOrPath);
  if (!file) {
    const names = files.map((f) => basename(f, extname(f)));
    const guess = closest(nameOrPath, names);
    throw new NotFoundError(
      `no shipped scenario named "${nameOrPath}"${guess ? `; did you mean ${guess}?` : ''} (redlock-cli scenario list shows them; a file path needs a / or .yaml)`,
    );
  }
  return loadScenario(displayPath(join(dir, file)));
}

/** Every shipped scenario, by name; a broken one throws (the catalogue's tests keep them valid). */
export async function listScenarios(dir = scenariosDir()): Promise<Scenario[]> {
  const files = await shippedFiles(dir);
  return Promise.all(files.map((f) => loadScenario(displayPath(join(dir, f)))));
}

/** The .yaml / .yml files of a directory, sorted; none when it does not exist. */
async function shippedFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  return entries.filter((f) => EXTENSIONS.some((e) => f.endsWith(e))).sort();
}

/** Relative to the working directory when inside it (`scenarios/x.yaml`), else absolute: short, and still openable. */
function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** The candidate that contains the input, or is within a few edits of it. */
function closest(input: string, candidates: readonly string[]): string | undefined {
  const containing = candidates.find((c) => c.includes(input) || input.includes(c));
  if (containing) return containing;
  const scored = candidates.map((c) => ({ c, d: editDistance(input, c) })).sort((a, b) => a.d - b.d);
  const best = scored[0];
  return best && best.d <= Math.max(2, Math.floor(input.length / 4)) ? best.c : undefined;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
