// After tsc: bundle the CLI's third-party runtime (commander, ioredis, the text-layout packages and
// chalk) into a few files under dist/vendor/ and point dist's imports of them there, as
// bundle-ui.mjs does for ink and react. Every one-shot command loads commander and most load
// ioredis; from node_modules those are some 90 files (ioredis alone 56, each resolved, read and
// compiled, and CommonJS ones scanned for their export names when ESM imports them), which was most
// of the start-up that `inspect <key>` and `--version` paid above node's own (bench/inspect.ts).
// Each package keeps its own entry, so a command line still loads only what it imports (`--version`
// never reads ioredis); code they share goes to a common chunk. src/ is untouched: tests and tsx
// run against node_modules as before. yaml, zod and proper-lockfile stay where they are: only
// scenarios and saved targets load them, through paths that bundling would not make shorter.
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const out = join(dist, 'vendor');
const PACKAGES = ['commander', 'ioredis', 'cluster-key-slot', 'string-width', 'wrap-ansi', 'slice-ansi', 'chalk'];

/** Every compiled module of ours (the vendor bundles and the UI's own excluded). */
function modules(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return path === out ? [] : modules(path);
    return e.name.endsWith('.js') && path !== join(dist, 'ui', 'vendor.js') ? [path] : [];
  });
}

// tsc's output imports these packages in two forms only: `import x from 'p'` and `import { a, b } from 'p'`.
const IMPORT = new RegExp(`^import\\s+(?:(\\w+)|\\{([^}]*)\\})\\s+from\\s+(['"])(${PACKAGES.join('|')})\\3;?$`, 'gm');
const files = modules(dist);
/** package -> the names dist imports from it ('default' for a default import). */
const used = new Map();
const problems = [];
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  for (const [, def, names, , spec] of text.matchAll(IMPORT)) {
    if (!used.has(spec)) used.set(spec, new Set());
    if (def) used.get(spec).add('default');
    else for (const name of names.split(',').map((n) => n.trim().split(/\s+as\s+/)[0]).filter(Boolean)) used.get(spec).add(name);
  }
  const other = new RegExp(`(?:from\\s*|import\\(\\s*|require\\(\\s*)['"](${PACKAGES.join('|')})(/[^'"]*)?['"]`).exec(text.replace(IMPORT, ''));
  if (other) problems.push(`${relative(root, file)}: ${other[0]} is a form the vendor bundle cannot serve`);
}
if (problems.length > 0) {
  console.error(`bundle-cli:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}

// One entry per package, exporting by name exactly what dist imports (CommonJS packages have no
// static export list for `export *`).
const entry = (spec) =>
  [...used.get(spec)].map((name) => (name === 'default' ? `export { default } from '${spec}';` : `export { ${name} } from '${spec}';`)).join('\n');
const virtualEntries = {
  name: 'vendor-entries',
  setup(b) {
    b.onResolve({ filter: /^vendor-entry:/ }, (args) => ({ path: args.path.slice('vendor-entry:'.length), namespace: 'vendor-entry' }));
    b.onLoad({ filter: /.*/, namespace: 'vendor-entry' }, (args) => ({ contents: entry(args.path), resolveDir: root, loader: 'js' }));
  },
};

rmSync(out, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: [...used.keys()].map((spec) => ({ in: `vendor-entry:${spec}`, out: spec })),
  outdir: relative(root, out),
  bundle: true,
  splitting: true,
  chunkNames: 'shared-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // CommonJS inside the bundle (commander, ioredis, ...) requires node's built-ins: give it a require.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module';\nconst require = __bundleRequire(import.meta.url);" },
  plugins: [virtualEntries],
  metafile: true,
  logLevel: 'warning',
});

let rewritten = 0;
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const next = text.replace(IMPORT, (line, _def, _names, quote, spec) => {
    rewritten += 1;
    const path = relative(dirname(file), join(out, `${spec}.js`)).split(sep).join('/');
    return line.replace(`${quote}${spec}${quote}`, `${quote}${path.startsWith('.') ? path : `./${path}`}${quote}`);
  });
  if (next !== text) writeFileSync(file, next);
}
const inputs = Object.keys(result.metafile.inputs).filter((i) => !i.startsWith('vendor-entry:')).length;
console.error(`bundle-cli: ${[...used.keys()].join(', ')} (${inputs} modules) in dist/vendor/; ${rewritten} imports point there`);
