import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The layers of CONTRIBUTING.md's code map, checked on the real import graph: every import
// specifier of every file in src/ (static, type-only, re-exports and dynamic import()) as the
// TypeScript parser reads it, not text matched by patterns.

/** Each folder of src/ (and main.ts) on its floor: a file imports only from floors below its own. */
const FLOORS: Readonly<Record<string, number>> = {
  core: 0,
  redis: 1,
  state: 1,
  inspect: 2,
  sandbox: 2,
  locks: 3,
  scenario: 4,
  race: 4,
  trace: 4,
  hold: 4,
  ui: 5,
  commands: 6,
  cli: 7,
  repl: 8,
  main: 9,
};

type ImportKind = 'static' | 'type' | 'dynamic';

interface Edge {
  readonly file: string;
  readonly specifier: string;
  readonly kind: ImportKind;
  /** The src/ file it points at, for a relative specifier. */
  readonly target?: string;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
}

/** Every import of a file: declarations, re-exports and import() calls with a literal specifier. */
function importsOf(file: string): Edge[] {
  const edges: Edge[] = [];
  const add = (specifier: string, kind: ImportKind): void => {
    const target = specifier.startsWith('.')
      ? relative('.', resolve(dirname(file), specifier.replace(/\.js$/, '')))
      : undefined;
    edges.push({ file, specifier, kind, ...(target !== undefined ? { target } : {}) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.importClause?.isTypeOnly ? 'type' : 'static');
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly ? 'type' : 'static');
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) add(arg.text, 'dynamic');
      else throw new Error(`${file}: import() of a computed specifier cannot be checked; use a literal`);
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(file));
  return edges;
}

/** `core` for src/core/decode/x.ts, `main` for src/main.ts. */
const folderOf = (file: string): string =>
  relative('src', file)
    .split('/')[0]!
    .replace(/\.tsx?$/, '');

const files = filesUnder('src');
const edges = files.flatMap(importsOf);
const internal = edges.filter((e) => e.target?.startsWith('src/'));
const packages = edges.filter((e) => e.target === undefined);

/** Folder A imports folder B: [A, B] for every pair with at least one import. */
function folderArrows(list: readonly Edge[]): Map<string, Set<string>> {
  const arrows = new Map<string, Set<string>>();
  for (const e of list) {
    const from = folderOf(e.file);
    const to = folderOf(e.target!);
    if (from === to) continue;
    if (!arrows.has(from)) arrows.set(from, new Set());
    arrows.get(from)!.add(to);
  }
  return arrows;
}

/** Cycles between folders, each as a path that ends where it started. */
function cycles(arrows: Map<string, Set<string>>): string[][] {
  const found: string[][] = [];
  const walk = (path: string[]): void => {
    for (const next of arrows.get(path[path.length - 1]!) ?? []) {
      if (next === path[0]) found.push([...path, next]);
      else if (!path.includes(next) && next > path[0]!) walk([...path, next]);
    }
  };
  for (const start of arrows.keys()) walk([start]);
  return found;
}

const describeEdge = (e: Edge): string => `${e.file} -> ${e.specifier} (${e.kind})`;

describe('the import graph of src/', () => {
  it('sees the imports there are (static, type-only, re-export, dynamic)', () => {
    const kinds = new Set(edges.map((e) => e.kind));
    expect([...kinds].sort()).toEqual(['dynamic', 'static', 'type']);
    expect(
      internal.some(
        (e) => e.file === 'src/cli/commands.ts' && e.kind === 'dynamic' && e.target === 'src/commands/inspect',
      ),
    ).toBe(true);
  });

  it('places every folder of src/ on a floor', () => {
    expect([...new Set(files.map(folderOf))].filter((f) => FLOORS[f] === undefined)).toEqual([]);
  });

  it('points downward only: commands -> scenario/race/hold -> locks -> inspect/sandbox -> redis/state -> core', () => {
    const upward = internal.filter(
      (e) => FLOORS[folderOf(e.file)]! <= FLOORS[folderOf(e.target!)]! && folderOf(e.file) !== folderOf(e.target!),
    );
    expect(upward.map(describeEdge)).toEqual([]);
  });

  it('has no cycle between folders', () => {
    expect(cycles(folderArrows(internal)).map((c) => c.join(' -> '))).toEqual([]);
  });

  it('finds a cycle where there is one (the check itself)', () => {
    const fake = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
    ]);
    expect(cycles(fake)).toEqual([['a', 'b', 'c', 'a']]);
  });
});

describe('packages by layer', () => {
  const inFolder = (folder: string) => packages.filter((e) => folderOf(e.file) === folder);

  it('only src/redis and src/sandbox import ioredis; src/ui never does', () => {
    const offenders = packages.filter(
      (e) => e.specifier === 'ioredis' && !['redis', 'sandbox'].includes(folderOf(e.file)),
    );
    expect(offenders.map(describeEdge)).toEqual([]);
  });

  it('src/core imports no I/O, terminal or UI module and never touches process', () => {
    const io = /^(node:)?(fs|fs\/promises|net|tls|child_process|worker_threads)$|^(ioredis|ink|react|chalk)$/;
    expect(
      inFolder('core')
        .filter((e) => io.test(e.specifier))
        .map(describeEdge),
    ).toEqual([]);
    const touchesProcess = files
      .filter((f) => folderOf(f) === 'core')
      .filter((f) => {
        let found = false;
        const visit = (node: ts.Node): void => {
          if (
            ts.isIdentifier(node) &&
            node.text === 'process' &&
            !(ts.isPropertyAccessExpression(node.parent) && node.parent.name === node)
          )
            found = true;
          ts.forEachChild(node, visit);
        };
        visit(parse(f));
        return found;
      });
    expect(touchesProcess).toEqual([]);
  });

  it('one-shot commands never import ink or react statically', () => {
    const offenders = inFolder('commands').filter((e) => e.kind === 'static' && /^(ink|react)(\/|$)/.test(e.specifier));
    expect(offenders.map(describeEdge)).toEqual([]);
  });
});

describe('Redis connections', () => {
  /**
   * Who may open a socket or an ioredis client, and why: every connection to the user's Redis
   * comes from connection.ts, so each gets the same credentials, TLS files and timeouts.
   */
  const ALLOWED: Readonly<Record<string, string>> = {
    'src/redis/connection.ts': 'the connection factory itself',
    'src/sandbox/resp.ts': "the sandbox supervisor's control channel to the loopback nodes it started",
    'src/sandbox/proxy.ts': 'the TCP fault proxy in front of a sandbox node (it forwards bytes, it speaks no RESP)',
    'src/sandbox/proxy-control.ts': "the fault proxy's own control socket",
  };

  /** What each module builds a connection with: its exports named here, under whatever local name. */
  const BUILDERS: Readonly<Record<string, RegExp>> = {
    ioredis: /^(Redis|Cluster|default)$/,
    net: /^(connect|createConnection|Socket)$/,
    tls: /^(connect|TLSSocket)$/,
  };

  /** Node's built-ins: their default export is the module itself (`import net from 'node:net'`), as a namespace import is. */
  const MODULE_AS_DEFAULT = new Set(['net', 'tls']);

  /**
   * Every `new X(` or `X(` in a file where X is an ioredis client or a net/tls socket builder, aliases included;
   * and every `import()` of those modules, whose builders could then be called under any name.
   */
  function clientsBuiltIn(file: string): string[] {
    const source = parse(file);
    const builders = new Set<string>();
    const namespaces = new Map<string, RegExp>();
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const module = statement.moduleSpecifier.text.replace(/^node:/, '');
      const exported = BUILDERS[module];
      const clause = statement.importClause;
      if (!exported || !clause || clause.isTypeOnly) continue;
      if (clause.name && MODULE_AS_DEFAULT.has(module)) namespaces.set(clause.name.text, exported);
      else if (clause.name && exported.test('default')) builders.add(clause.name.text);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) namespaces.set(bindings.name.text, exported);
      if (bindings && ts.isNamedImports(bindings)) {
        for (const el of bindings.elements)
          if (!el.isTypeOnly && exported.test((el.propertyName ?? el.name).text)) builders.add(el.name.text);
      }
    }
    const isBuilder = (callee: ts.Expression): boolean =>
      ts.isIdentifier(callee)
        ? builders.has(callee.text)
        : ts.isPropertyAccessExpression(callee) &&
          ts.isIdentifier(callee.expression) &&
          (namespaces.get(callee.expression.text)?.test(callee.name.text) ?? false);
    const found: string[] = [];
    const isBuilderModule = (node: ts.CallExpression): boolean =>
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0]) &&
      BUILDERS[node.arguments[0].text.replace(/^node:/, '')] !== undefined;
    const visit = (node: ts.Node): void => {
      if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && isBuilder(node.expression)) {
        found.push(`${file}: ${ts.isNewExpression(node) ? 'new ' : ''}${node.expression.getText(source)}(`);
      }
      if (ts.isCallExpression(node) && isBuilderModule(node)) found.push(`${file}: ${node.getText(source)}`);
      ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
  }

  it('are built only by src/redis/connection.ts (and the sandbox plumbing that is no Redis client)', () => {
    expect(files.filter((f) => ALLOWED[f] === undefined).flatMap(clientsBuiltIn)).toEqual([]);
  });

  it('finds a client built in any form: named, aliased, namespace, default and dynamic imports (the check itself)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'layers-'));
    const file = join(dir, 'escape.ts');
    writeFileSync(
      file,
      [
        "import Redis, { Cluster as C } from 'ioredis';",
        "import * as io from 'ioredis';",
        "import net from 'node:net';",
        "import { connect as tlsConnect } from 'node:tls';",
        'new Redis(); new C([]); new io.Redis();',
        'net.createConnection(1); tlsConnect(1); new net.Socket();',
        "export const late = async () => new (await import('ioredis')).Redis();",
        "export const socket = async () => (await import('node:net')).connect(1);",
      ].join('\n'),
    );
    try {
      expect(clientsBuiltIn(file).map((site) => site.slice(file.length + 2))).toEqual([
        'new Redis(',
        'new C(',
        'new io.Redis(',
        'net.createConnection(',
        'tlsConnect(',
        'new net.Socket(',
        "import('ioredis')",
        "import('node:net')",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds the clients each allowed file builds (the check itself, and no stale entry)', () => {
    expect(Object.keys(ALLOWED).filter((f) => clientsBuiltIn(f).length === 0)).toEqual([]);
  });
});
