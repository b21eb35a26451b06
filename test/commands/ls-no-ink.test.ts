import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../helpers/build.js';
import { useLockServer } from '../helpers/fixture.js';
import { owner } from '../helpers/lock-env.js';

// CONTRIBUTING.md (house rules): one-shot commands never import ink or react (they cost ~400 ms). The built CLI runs
// under an import hook that refuses both, and dist/ui/vendor.js, the bundle that stands in for
// them in dist (scripts/bundle-ui.mjs); the controls prove the hook does bite.

const fx = useLockServer();
let hook: string;

beforeAll(() => {
  ensureBuilt();
  hook = join(mkdtempSync(join(tmpdir(), 'redlock-no-ink-')), 'no-ink.mjs');
  const resolve = `export async function resolve(s, c, n) { if (/^(ink|react)(\\/|$)/.test(s)) throw new Error('imported ' + s); const r = await n(s, c); if (r.url.endsWith('/dist/ui/vendor.js')) throw new Error('imported ' + s); return r; }`;
  writeFileSync(hook, `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(resolve)}));\n`);
}, 60_000);

async function node(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('node', ['--import', pathToFileURL(hook).href, ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('one-shot commands do not load ink or react', () => {
  it('the hook refuses ink', async () => {
    const r = await node('--input-type=module', '-e', "await import('ink')");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('imported ink');
  });

  it('the hook refuses the bundled ink and react', async () => {
    const r = await node('--input-type=module', '-e', "await import('./dist/ui/vendor.js')");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('imported ./dist/ui/vendor.js');
  });

  it.each(['inspect orders', 'ls', 'ls --json', 'doctor', 'doctor --json', 'ls --watch'])('%s', async (line) => {
    const args = line.split(' ');
    await fx.raw.hset('orders', owner(1), '1');
    const r = await node(BIN, ...args, '--url', fx.server.url);
    expect(r.stderr).not.toContain('imported');
    // ls --watch refuses without a terminal (exit 2) before it would load the view; doctor finds the TTL-less lock.
    expect(r.code).toBe(args[0] === 'doctor' ? 6 : args[1] === '--watch' ? 2 : 0);
  });
});
