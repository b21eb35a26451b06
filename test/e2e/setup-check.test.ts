import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// scripts/setup.sh --check: what the install script would install, build and run, with nothing
// changed; and scripts/extra-servers.sh, which keeps the servers of the matrix in a cache of its
// own (REDLOCK_SERVER_CACHE here, so the machine's cache is never read or written).

const exec = promisify(execFile);
const caches: string[] = [];
afterAll(() => {
  for (const dir of caches) rmSync(dir, { recursive: true, force: true });
});

function emptyCache(): string {
  const dir = mkdtempSync(join(tmpdir(), 'redlock-server-cache-'));
  caches.push(dir);
  return dir;
}

/** A cache holding a "build" of valkey 8.1.1 (an executable stub: only its presence counts). */
function cacheWithValkey(): { dir: string; binary: string } {
  const dir = emptyCache();
  mkdirSync(join(dir, 'valkey-8.1.1', 'bin'), { recursive: true });
  const binary = join(dir, 'valkey-8.1.1', 'bin', 'valkey-server');
  writeFileSync(binary, '#!/bin/sh\n', { mode: 0o755 });
  return { dir, binary };
}

async function script(name: string, args: string[], cache: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await exec('bash', [`scripts/${name}`, ...args], { env: { ...process.env, REDLOCK_SERVER_CACHE: cache }, timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('scripts/setup.sh --check', () => {
  it('says what it would install, build and run, and changes nothing', async () => {
    const cache = emptyCache();
    const r = await script('setup.sh', ['--check'], cache);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^install-deps: apt packages to install: .+$/m);
    expect(r.stdout).toMatch(/^install-deps: Java packages to install \(no recommends\): .+$/m);
    expect(r.stdout).toMatch(/^install-deps: (node v\d+\.\d+\.\d+ \(>= 20\)|would install node@20 .+)$/m);
    expect(r.stdout).toContain(`extra-servers: would build valkey 8.1 from trixie's source (mirror http`);
    expect(r.stdout).toContain(`extra-servers: would build redis 8.0 from trixie's source (mirror http`);
    expect(r.stdout).toMatch(/^setup: would run npm ci, npm run build, npm link \(into \/.+\/bin\), then the demo on a sandbox$/m);
    expect(readdirSync(cache)).toEqual([]);
  }, 60_000);

  it('reuses a server already built, without the network', async () => {
    const { dir, binary } = cacheWithValkey();
    const r = await script('extra-servers.sh', ['check'], dir);
    expect(r.stdout).toContain(`extra-servers: reusing valkey 8.1 (valkey-8.1.1): ${binary}`);
    expect(r.stdout).toContain('extra-servers: would build redis 8.0');
  });

  it('bad input is one line and exit 2', async () => {
    const setup = await script('setup.sh', ['--bogus'], emptyCache());
    expect([setup.code, setup.stderr.trim()]).toEqual([2, 'usage: scripts/setup.sh [--check]']);
    const unknown = await script('extra-servers.sh', ['path', 'keydb'], emptyCache());
    expect([unknown.code, unknown.stderr.trim()]).toEqual([2, `extra-servers: unknown server 'keydb': one of valkey redis`]);
  });
});

// What a machine with only a shell and Node has: every other tool is hidden from the check.
const BASIC_TOOLS = ['bash', 'sh', 'env', 'id', 'dirname', 'basename', 'cat', 'grep', 'cut', 'head', 'tr', 'node'];
/** Each tool (or package) the suite needs, and the package the check must name for it. */
const NEEDED = {
  apt: ['redis-server', 'openssl', 'faketime', 'gcc', 'make', 'xz-utils', 'tmux', 'fish', 'zsh', 'python3-redis'],
  java: ['openjdk-17-jdk-headless', 'libnetty-java', 'libjackson2-databind-java', 'libyaml-snake-java', 'libslf4j-java', 'libbyte-buddy-java', 'libreactive-streams-java', 'libspring-beans-java', 'libcaffeine-java'],
};

describe('scripts/install-deps.sh --check on a machine missing the tools', () => {
  it('would install every tool the suite needs, and says the real Redisson peer is missing and what skips', async () => {
    const bin = emptyCache();
    for (const tool of BASIC_TOOLS) symlinkSync(execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), join(bin, tool));
    const env = { HOME: emptyCache(), PATH: bin, REDLOCK_SERVER_CACHE: emptyCache(), REDLOCK_JAVA_DIR: emptyCache(), REDISSON_PEER: join(bin, 'no-peer') };
    const r = await exec(join(bin, 'bash'), ['scripts/install-deps.sh', '--check'], { env, timeout: 60_000 });
    const listed = (label: string) => (new RegExp(`^install-deps: ${label}: (.+)$`, 'm').exec(r.stdout)?.[1] ?? '').split(' ');
    expect(listed('apt packages to install')).toEqual(expect.arrayContaining(NEEDED.apt));
    expect(listed('Java packages to install \\(no recommends\\)')).toEqual(expect.arrayContaining(NEEDED.java));
    expect(r.stdout).toMatch(/^install-deps: the real Redisson peer \S+no-peer is missing .*: the real-Redisson tests will skip \(test\/interop\/redisson-java-\*\.test\.ts, /m);
  }, 60_000);
});

describe('scripts/extra-servers.sh path', () => {
  it('prints the cached binary, or exits 4 saying how to build it', async () => {
    const { dir, binary } = cacheWithValkey();
    expect((await script('extra-servers.sh', ['path', 'valkey'], dir)).stdout.trim()).toBe(binary);
    const missing = await script('extra-servers.sh', ['path', 'redis'], dir);
    expect([missing.code, missing.stderr.trim()]).toEqual([4, 'extra-servers: redis is not built yet: run scripts/extra-servers.sh install']);
  });
});

// npm 11 warns at install about every dependency with an install script that package.json's
// allowScripts does not approve (`npm warn install-scripts ...`); docs/install.md says why ours are.
describe('install scripts of dependencies (npm allowScripts)', () => {
  it('every dependency the lockfile marks as having one is approved, and docs/install.md explains each', () => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages).filter(([, p]) => p.hasInstallScript).map(([path]) => path.replace(/^.*node_modules\//, ''));
    const allowed = (JSON.parse(readFileSync('package.json', 'utf8')) as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
    expect(withScripts.length).toBeGreaterThan(0); // esbuild: the lockfile is read right
    expect(Object.keys(allowed).sort()).toEqual([...new Set(withScripts)].sort());
    const doc = readFileSync('docs/install.md', 'utf8');
    expect(doc).toMatch(/`"allowScripts": \{ "esbuild": true \}`.*\n(.+\n){0,6}.*npm warn install-scripts/);
    for (const name of withScripts) expect(doc).toMatch(new RegExp(`${name}'s postinstall`));
  });
});
