import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

// What a stranger gets: `npm pack` (prepack builds and prunes dist/), a global install of the
// tarball into a throwaway prefix, and the installed bin run from outside the repository, so it
// can only use what the tarball and its declared dependencies bring. Dependencies install with
// --prefer-offline: `npm ci` leaves their tarballs in the npm cache but not the registry's metadata,
// so --offline fails on a fresh CI machine while --prefer-offline fetches only that metadata.

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};

interface PackInfo {
  readonly filename: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly files: readonly { readonly path: string }[];
}

// `npm test` hands its children npm_config_prefix, npm_package_* & co.: they would steer the nested
// npm calls at this repository. Other npm settings (cache, registry, userconfig) pass through.
const NPM_RUN_VARS = /^npm_(config_(prefix|global_prefix|local_prefix|global)|package_.*|lifecycle_.*|command|execpath|node_execpath)$/i;
const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !NPM_RUN_VARS.test(k))),
  NO_COLOR: '1',
  ...extra,
});

/** Packages bundled code loads only inside a try, working without them (checked by hand in dist/vendor/). */
const OPTIONAL_REQUIRES = new Set(['supports-color']);

let work: string;
let prefix: string;
let info: PackInfo;
let installed: string;
let server: RedisServer | undefined;
const npxDirs: string[] = [];

// `npm pack` runs prepack, which rebuilds dist/. Run in the repository, it would rewrite the dist/
// that other end-to-end files are running from at that moment: tsc emits dist/ui with bare ink
// imports a moment before the bundle step points them at vendor.js, and a REPL importing a view
// in between loads a second React ("Cannot read properties of null (reading 'useContext')"). So
// the package is packed from a copy of what a build reads, with this checkout's node_modules.
const BUILD_INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'bin', 'src', 'scripts', 'scenarios', 'README.md', 'LICENSE'];

function stagePackage(dir: string): string {
  for (const entry of BUILD_INPUTS) cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'redlock-cli-pack-'));
  prefix = join(work, 'prefix');
  const stage = stagePackage(join(work, 'package'));
  const packed = await exec('npm', ['pack', '--json', '--pack-destination', work], { cwd: stage, env: cleanEnv(), maxBuffer: 16 << 20 });
  info = (JSON.parse(packed.stdout) as PackInfo[])[0]!;
  const kB = (n: number): string => `${(n / 1000).toFixed(1)} kB`;
  console.log(`npm pack: ${info.filename} ${kB(info.size)} packed, ${kB(info.unpackedSize)} unpacked, ${info.files.length} files`);
  await exec('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(work, info.filename)], {
    cwd: work,
    env: cleanEnv(),
  });
  installed = join(prefix, 'lib', 'node_modules', 'redlock-cli');
  const deps = installedPackages(join(installed, 'node_modules'));
  console.log(`installed dependencies: ${deps.count} packages, ${(deps.bytes / 1e6).toFixed(1)} MB`);
  server = await startRedis();
}, 120_000);

afterAll(async () => {
  await server?.stop();
  for (const dir of npxDirs) rmSync(dir, { recursive: true, force: true });
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs the globally installed bin from a directory outside the repository. */
async function installedCli(args: string[], extra: Record<string, string> = {}) {
  const state = join(work, 'state');
  mkdirSync(state, { recursive: true });
  const env = cleanEnv({ XDG_STATE_HOME: state, XDG_CONFIG_HOME: join(work, 'config'), ...extra });
  return exec(join(prefix, 'bin', 'redlock-cli'), args, { cwd: work, env });
}

/** How many packages a global install brought along and their size on disk (what an npx user downloads). */
function installedPackages(modules: string): { count: number; bytes: number } {
  if (!existsSync(modules)) return { count: 0, bytes: 0 };
  const files = filesUnder(modules);
  // A package's root: its package.json right under node_modules/ or node_modules/@scope/.
  const roots = files.filter((f) => /[\\/]node_modules[\\/](@[^\\/]+[\\/])?[^\\/@]+[\\/]package\.json$/.test(f));
  return { count: roots.length, bytes: files.reduce((sum, f) => sum + statSync(f).size, 0) };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

describe('npm pack', () => {
  it('holds only what runs: bin, built dist with its Lua scripts, scenarios, README, LICENSE', () => {
    const paths = info.files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['bin/redlock-cli.js', 'dist/main.js', 'package.json', 'README.md', 'LICENSE']));
    const lua = readdirSync(join(ROOT, 'src', 'redis', 'lua')).map((f) => `dist/redis/lua/${f}`);
    expect(paths).toEqual(expect.arrayContaining(lua));
    const shipped = existsSync(join(ROOT, 'scenarios')) ? filesUnder(join(ROOT, 'scenarios')) : [];
    expect(paths).toEqual(expect.arrayContaining(shipped.map((f) => relative(ROOT, f).split(sep).join('/'))));
    const outside = paths.filter((p) => !/^(bin\/|dist\/|scenarios\/|README\.md$|LICENSE$|package\.json$)/.test(p));
    expect(outside).toEqual([]);
    expect(paths.filter((p) => /\.map$|\.test\.|(^|\/)(fixtures?|__tests__)\//.test(p))).toEqual([]);
    // Every compiled file has a source: nothing a renamed or deleted module left behind ships
    // (dist/vendor/ is bundled from node_modules afresh by every build: scripts/bundle-cli.mjs).
    expect(paths).toEqual(expect.arrayContaining(['dist/vendor/commander.js', 'dist/vendor/ioredis.js']));
    const orphans = paths
      .filter((p) => p.startsWith('dist/') && !p.startsWith('dist/vendor/') && p.endsWith('.js'))
      .filter((p) => !['.ts', '.tsx'].some((ext) => existsSync(join(ROOT, 'src', p.slice(5, -3) + ext))));
    expect(orphans).toEqual([]);
    // The compressed tarball: 1.0 MB with the exporter, the incident page and the catalogue of
    // 2026-11 (digests.json alone is 97 KB unpacked); a jump past this bound means something ships
    // that should not.
    expect(info.size).toBeLessThan(1_200_000);
  });

  it('dist imports only its declared dependencies and reads files only inside the package', () => {
    const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
    const deps = new Set(Object.keys(pkg.dependencies));
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const file of filesUnder(join(installed, 'dist')).filter((f) => f.endsWith('.js'))) {
      const text = readFileSync(file, 'utf8');
      for (const [, a, b, c] of text.matchAll(/(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm)) {
        const spec = a ?? b ?? c;
        if (spec === undefined || spec.startsWith('.')) continue;
        seen.add(spec);
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (!builtins.has(spec) && !builtins.has(name) && !deps.has(name)) problems.push(`${relative(installed, file)} imports ${spec}`);
      }
      // CommonJS code inside the vendor bundles loads through esbuild's __require: builtins only,
      // bar one optional package that the bundled code asks for inside a try (debug's colours).
      for (const [, spec] of text.matchAll(/(?<![\w$])(?:__)?require\(\s*['"]([^'"]+)['"]\s*\)/g)) {
        seen.add(`require ${spec}`);
        const name = spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!;
        if (!builtins.has(spec!) && !builtins.has(name) && !deps.has(name) && !OPTIONAL_REQUIRES.has(name)) problems.push(`${relative(installed, file)} requires ${spec}`);
      }
      // Files found through import.meta.url (package.json, lua/, scenarios/) must resolve inside the package.
      for (const [, target] of text.matchAll(/new URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g)) {
        const at = resolve(dirname(file), target!);
        seen.add(relative(installed, at));
        if (!at.startsWith(installed + sep) && at !== installed) problems.push(`${relative(installed, file)} reads ${target} outside the package`);
        else if (!target!.endsWith('/') && !existsSync(at)) problems.push(`${relative(installed, file)} reads ${target}, which the tarball lacks`);
      }
    }
    expect(problems).toEqual([]);
    // The scan saw what it must see, or it proves nothing.
    expect([...seen]).toEqual(expect.arrayContaining(['yaml', 'zod', 'node:fs', 'package.json', join('dist', 'redis', 'lua')]));
    // ink and react ship bundled in dist/ui/vendor.js (scripts/bundle-ui.mjs), which dist/ui imports
    // instead: a bare import left anywhere would load a second React from node_modules. The same
    // for commander, ioredis, chalk and the text packages in dist/vendor/ (scripts/bundle-cli.mjs).
    expect(existsSync(join(installed, 'dist', 'ui', 'vendor.js'))).toBe(true);
    const bundled = /^(ink|react|commander|ioredis|cluster-key-slot|chalk|string-width|wrap-ansi|slice-ansi)(\/|$)/;
    expect([...seen].filter((spec) => bundled.test(spec))).toEqual([]);
    expect([...seen]).toEqual(expect.arrayContaining(['require net', 'require tls']));
    // So they are build-time packages (devDependencies): an install does not bring them along.
    expect(Object.keys(pkg.dependencies).filter((name) => bundled.test(name))).toEqual([]);
    expect(['ioredis', 'commander', 'chalk', 'string-width'].filter((name) => existsSync(join(installed, 'node_modules', name)))).toEqual([]);
  });
});

describe('the installed package', () => {
  it('--version prints the package version', async () => {
    const { stdout } = await installedCli(['--version']);
    expect(stdout.trim()).toBe(pkg.version);
  });

  it('--help lists the commands and the exit codes', async () => {
    const { stdout } = await installedCli(['--help']);
    expect(stdout).toMatch(/^Usage: redlock-cli /);
    expect(stdout).toMatch(/\n\s+inspect /);
    expect(stdout).toContain('Exit codes:');
  });

  it('acquire and inspect work against a real redis-server (Lua scripts ship in the tarball)', async () => {
    const url = server!.url;
    const taken = await installedCli(['acquire', 'packed-lock', '--lease', '30s', '--json', '-u', url]);
    const owner = (JSON.parse(taken.stdout) as { owner: string }).owner;
    const { stdout } = await installedCli(['inspect', 'packed-lock', '-u', url]);
    // The 30 s lease, less two process starts of the installed CLI on a busy machine.
    expect(stdout).toMatch(/^packed-lock\s+Redisson lock \(reentrant or fair: no queue to tell\), expires in (2\d|30)\.\d s/);
    expect(stdout).toContain(`holder    ${owner.replace(/:1$/, '')} thread 1`);
  });

  it('draws a live view on a terminal with ink and react from its own bundle, none installed', async () => {
    expect(existsSync(join(installed, 'node_modules', 'ink'))).toBe(false);
    expect(existsSync(join(installed, 'node_modules', 'react'))).toBe(false);
    const state = join(work, 'state');
    mkdirSync(state, { recursive: true });
    const bin = join(prefix, 'bin', 'redlock-cli');
    // script(1) gives it a pseudo-terminal, so hold draws its ink view instead of event lines.
    const { stdout } = await exec('script', ['-qfec', `stty rows 30 cols 100; ${bin} hold packed-live --for 1s -u ${server!.url}`, '/dev/null'], {
      cwd: work,
      env: cleanEnv({ XDG_STATE_HOME: state, COLUMNS: '100', LINES: '30' }),
    });
    expect(stdout).toContain('packed-live');
    expect(stdout).toMatch(/● held/);
    expect(stdout).toMatch(/lease\s+\S*█/);
  });

  it('npx redlock-cli finds the global install offline', async () => {
    const { stdout } = await exec('npx', ['--offline', 'redlock-cli', '--version'], { cwd: work, env: cleanEnv({ npm_config_prefix: prefix }) });
    expect(stdout.trim()).toBe(pkg.version);
  });

  it('npx --package <tarball> installs it with its dependencies and runs it', async () => {
    const cache = (await exec('npm', ['config', 'get', 'cache'], { env: cleanEnv() })).stdout.trim();
    const before = new Set(existsSync(join(cache, '_npx')) ? readdirSync(join(cache, '_npx')) : []);
    try {
      const tgz = join(work, info.filename);
      const { stdout } = await exec('npx', ['--yes', '--prefer-offline', '--package', tgz, 'redlock-cli', '--version'], { cwd: work, env: cleanEnv() });
      expect(stdout.trim()).toBe(pkg.version);
    } finally {
      // npx keeps what it installed under <cache>/_npx/<hash>: remove only the dir naming our tarball.
      for (const dir of existsSync(join(cache, '_npx')) ? readdirSync(join(cache, '_npx')) : []) {
        const manifest = join(cache, '_npx', dir, 'package.json');
        if (!before.has(dir) && existsSync(manifest) && readFileSync(manifest, 'utf8').includes(work)) npxDirs.push(join(cache, '_npx', dir));
      }
    }
  });
});
