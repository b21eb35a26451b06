// After tsc: bundle the UI's third-party runtime (ink, react and everything they import) into one
// file, dist/ui/vendor.js, and point dist/ui's imports of 'ink', 'react' and 'react/jsx-runtime'
// at it. Node then reads and links one module instead of some 530 files (415 of them es-toolkit:
// ink imports the whole es-toolkit/compat barrel for one `throttle`, which the bundle tree-shakes),
// and that loading was most of the REPL's time to first prompt.
// src/ is untouched: tests and tsx run against node_modules as before. See src/ui/vendor.ts.
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const vendor = join(dist, 'ui', 'vendor.js');

// ink imports ./devtools.js (and through it react-devtools-core and ws) only when DEV=true.
// react-devtools-core is not one of our dependencies, so an installed redlock-cli already fails
// that import; the stub fails it the same way (ink catches this code and prints its hint), and
// keeps a static import of a package we do not ship out of the bundle.
const noDevtools = {
  name: 'no-ink-devtools',
  setup(b) {
    b.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) =>
      /[\\/]ink[\\/]build[\\/]/.test(args.importer) ? { path: 'ink-devtools', namespace: 'no-ink-devtools' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'no-ink-devtools' }, () => ({
      contents: "const e = new Error('react-devtools-core is not part of redlock-cli'); e.code = 'ERR_MODULE_NOT_FOUND'; throw e;",
      loader: 'js',
    }));
  },
};

// With DEV=true ink's reconciler reads its own package.json (name and version, for devtools) next
// to its build/; in the bundle that path would be dist/package.json. Inline the two fields.
const inkPackage = {
  name: 'ink-package-json',
  setup(b) {
    b.onLoad({ filter: /[\\/]ink[\\/]build[\\/]reconciler\.js$/ }, (args) => {
      const read = "fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')";
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(read)) throw new Error(`ink's reconciler no longer reads its package.json as expected: check ${args.path}`);
      const { name, version } = JSON.parse(readFileSync(new URL('../package.json', pathToFileURL(args.path)), 'utf8'));
      return { contents: source.replace(read, JSON.stringify(JSON.stringify({ name, version }))), loader: 'js' };
    });
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/ui/vendor.ts'],
  outfile: relative(root, vendor),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // React's production build, whatever NODE_ENV the user has: the development build (what an unset
  // NODE_ENV picks at run time) checks and times every render, and in a live view that shares its
  // event loop with a timed race (scenario run) its frames alone made the race run 100-1300 ms late
  // beside a busy machine. The tests and tsx still run React from node_modules (development).
  define: { 'process.env.NODE_ENV': '"production"' },
  // CommonJS inside the bundle (react, signal-exit, ...) requires node's built-ins: give it a require.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module';\nconst require = __bundleRequire(import.meta.url);" },
  plugins: [noDevtools, inkPackage],
  metafile: true,
  logLevel: 'warning',
});
// tsc's map described the list of re-exports the bundle replaced.
rmSync(`${vendor}.map`, { force: true });
const exported = new Set(result.metafile.outputs[relative(root, vendor).split(sep).join('/')].exports);

/** Every compiled module under dir, but the bundle itself. */
function modules(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? modules(join(dir, e.name)) : e.name.endsWith('.js') && join(dir, e.name) !== vendor ? [join(dir, e.name)] : [],
  );
}

const UI_RUNTIME = /(import\s*(\{[^}]*\})?[^'"]*?from\s*|import\(\s*)(['"])(ink|react|react\/jsx-runtime)\3/g;
const problems = [];
let rewritten = 0;
for (const file of modules(dist)) {
  const text = readFileSync(file, 'utf8');
  const at = relative(root, file);
  const next = text.replace(UI_RUNTIME, (_, head, names, quote, spec) => {
    // Only src/ui may import ink and react (CONTRIBUTING.md); named imports are all the bundle offers.
    if (!file.startsWith(join(dist, 'ui') + sep)) problems.push(`${at} imports ${spec} outside src/ui`);
    else if (names === undefined || !/^import\s*\{[^}]*\}\s*from\s*$/.test(head)) problems.push(`${at}: only \`import { ... } from '${spec}'\` can use the bundle`);
    else {
      for (const name of names.slice(1, -1).split(',').map((n) => n.trim().split(/\s+as\s+/)[0]).filter(Boolean)) {
        if (!exported.has(name)) problems.push(`${at} imports ${name} from ${spec}: add it to src/ui/vendor.ts`);
      }
    }
    rewritten += 1;
    return `${head}${quote}./vendor.js${quote}`;
  });
  if (next !== text) writeFileSync(file, next);
  // Any other form (export ... from, a subpath) would load a second copy from node_modules.
  const left = /(from\s*|import\(\s*)['"](ink|react)(\/[^'"]*)?['"]/.exec(next);
  if (left) problems.push(`${at} still imports ${left[0]}`);
}
if (problems.length > 0) {
  console.error(`bundle-ui:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.error(`bundle-ui: ${relative(root, vendor)} (${Object.keys(result.metafile.inputs).length} modules); ${rewritten} imports point at it`);
