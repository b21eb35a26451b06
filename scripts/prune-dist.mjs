// Before packing: tsc never deletes, so a source file renamed or removed since the last build
// leaves its old .js in dist/, which would ship and could still be imported. Delete every compiled
// file whose source is gone (only orphans, so a concurrent run of the built CLI is not disturbed).
import { existsSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const src = join(root, 'src');

/**
 * The source a compiled file came from: dist/a/b.js(.map) <- src/a/b.ts(x); lua and json are copied as is;
 * dist/vendor/ is bundled from node_modules by scripts/bundle-cli.mjs, afresh on every build.
 */
function hasSource(file) {
  const rel = relative(dist, file);
  if (rel.split(sep)[0] === 'vendor') return true;
  // Written by the build from the command tree (the launcher answers a Tab from it), afresh each time.
  if (rel === 'completion-tree.json') return true;
  if (rel.endsWith('.lua') || rel.endsWith('.json')) return existsSync(join(src, rel));
  const base = rel.replace(/\.(js|js\.map|d\.ts|d\.ts\.map)$/, '');
  if (base === rel) return false;
  return existsSync(join(src, `${base}.ts`)) || existsSync(join(src, `${base}.tsx`));
}

let removed = 0;
function prune(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      prune(path);
      if (readdirSync(path).length === 0) rmdirSync(path);
    } else if (!hasSource(path)) {
      rmSync(path);
      removed += 1;
      console.error(`prune-dist: removed ${relative(root, path)} (its source is gone)`);
    }
  }
}

prune(dist);
if (removed === 0) console.error('prune-dist: dist/ has only built files');
