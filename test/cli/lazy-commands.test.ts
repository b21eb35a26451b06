import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, entriesFor } from '../../src/cli/commands.js';
import { BIN, ensureBuilt } from '../helpers/build.js';
import { useLockServer } from '../helpers/fixture.js';
import { owner } from '../helpers/lock-env.js';
import { tempStateEnv } from '../helpers/run-cli.js';

// A one-shot command loads only its own modules: the built CLI runs under an import hook that
// writes down every module it resolves, and the list is checked against what the command needs.

const fx = useLockServer();
// Modules every command line loads with the program: the connection options all commands share,
// the resolver that turns them into one endpoint before any command runs (its preAction hook),
// and help-text, which holds each command's help prose until help is shown.
const PROGRAM_COMMAND_MODULES = 'connection-flags|resolve-endpoint|help-text|context';
// Loaded only to show help or a usage error (src/cli/program.ts runs such a line again with them).
const HELP_MODULES = /^commands\/(help|help-examples|completion-tree|colour)\.js$|^core\/text-layout\.js$/;
const dir = mkdtempSync(join(tmpdir(), 'redlock-lazy-'));
const hook = join(dir, 'record.mjs');

beforeAll(() => {
  ensureBuilt();
  const resolve =
    "import { appendFileSync } from 'node:fs';" +
    'export async function resolve(s, c, n) { const r = await n(s, c); appendFileSync(process.env.MODULE_LOG, r.url + "\\n"); return r; }';
  writeFileSync(
    hook,
    `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(resolve)}));\n`,
  );
}, 60_000);

/**
 * Runs the built CLI; the modules it resolved, as paths under dist/ or package names (a package
 * the build bundled into dist/vendor/ by its name too; the chunks its bundles share are left out).
 */
async function loaded(...args: string[]): Promise<{ code: number; modules: string[] }> {
  const log = join(dir, `modules-${Math.random().toString(36).slice(2)}`);
  writeFileSync(log, '');
  let code = 0;
  try {
    await promisify(execFile)('node', ['--import', pathToFileURL(hook).href, BIN, ...args], {
      env: { ...process.env, ...tempStateEnv(), MODULE_LOG: log },
    });
  } catch (err) {
    code = (err as { code: number }).code;
  }
  const modules = readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => url.replace(/^.*\/node_modules\/((@[^/]+\/)?[^/]+).*$/, 'pkg:$1').replace(/^file:.*\/dist\//, ''))
    .map((path) => path.replace(/^vendor\/(.+)\.js$/, 'pkg:$1'))
    .filter((path) => !/^pkg:shared-/.test(path));
  return { code, modules: [...new Set(modules)] };
}

describe('which commands a command line loads', () => {
  it('only the command it names', () => {
    expect(entriesFor(['inspect', 'k', '--json'], COMMANDS).map((e) => e.name)).toEqual(['inspect']);
    expect(entriesFor(['--debug', 'sandbox', 'up'], COMMANDS).map((e) => e.name)).toEqual(['sandbox']);
  });

  it('none for --version alone', () => {
    expect(entriesFor(['--version'], COMMANDS)).toEqual([]);
    expect(entriesFor(['-V'], COMMANDS)).toEqual([]);
  });

  it('all of them for help, completion, no command, an unknown word or an unknown option', () => {
    for (const argv of [['help', 'inspect'], ['completion', 'bash'], [], ['--help'], ['inspec', 'k'], ['--nope']]) {
      expect(entriesFor(argv, COMMANDS)).toBe(COMMANDS);
    }
  });
});

describe('a one-shot command loads only its own modules', () => {
  it('--version: commander and the program, no command, no ioredis, no help, colour or text layout', async () => {
    const r = await loaded('--version');
    expect(r.code).toBe(0);
    expect(r.modules).toContain('pkg:commander');
    // The program's own: the connection options every command shares.
    const own = new RegExp(`^(commands/(${PROGRAM_COMMAND_MODULES})|redis/target)\\.js$|^pkg:commander$`);
    expect(
      r.modules.filter(
        (m) => !own.test(m) && /^(commands|locks|redis|inspect|sandbox|scenario|race|ui)\/|^pkg:/.test(m),
      ),
    ).toEqual([]);
  });

  it('inspect <key>: the inspect command, the decoder and ioredis; no other command, yaml or zod', async () => {
    await fx.raw.hset('orders', owner(1), '1');
    const r = await loaded('inspect', 'orders', '--url', fx.server.url);
    expect(r.code).toBe(0);
    expect(r.modules).toEqual(expect.arrayContaining(['commands/inspect.js', 'inspect/snapshot.js', 'pkg:ioredis']));
    const others = r.modules.filter(
      (m) =>
        /^commands\//.test(m) &&
        !new RegExp(
          `^commands/(inspect|inspect/watch|inspect/watch-output|options|across-nodes|cluster-partial|colour|${PROGRAM_COMMAND_MODULES})\\.js$`,
        ).test(m),
    );
    expect(others).toEqual([]);
    expect(
      r.modules.filter((m) => /^(sandbox|scenario|race|ui|repl\/(?!entry))\/|pkg:(yaml|zod|ink|react)/.test(m)),
    ).toEqual([]);
    // Its output is coloured and measured by the text layout, but help's own modules stay unloaded.
    expect(r.modules.filter((m) => /^commands\/(help|help-examples|completion-tree)\.js$/.test(m))).toEqual([]);
  });

  it('help and usage errors load help: the line runs again on the whole program', async () => {
    for (const args of [['inspect', '--help'], ['help', 'inspect'], ['inspec', 'k'], ['sandbox']]) {
      const r = await loaded(...args);
      expect(r.modules.filter((m) => HELP_MODULES.test(m)).sort(), args.join(' ')).toEqual([
        'commands/colour.js',
        'commands/completion-tree.js',
        'commands/help-examples.js',
        'commands/help.js',
        'core/text-layout.js',
      ]);
    }
  });

  it('scenario list loads yaml and zod (the hook sees them when they are used)', async () => {
    const r = await loaded('scenario', 'list', '--json');
    expect(r.code).toBe(0);
    expect(r.modules).toEqual(expect.arrayContaining(['pkg:yaml', 'pkg:zod']));
  });
});
