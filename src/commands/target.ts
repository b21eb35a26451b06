import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import {
  checkTargetName,
  describeAuth,
  describeTopology,
  maskUrl,
  storedTarget,
  targetPasswordEnv,
  type StoredTarget,
} from '../core/targets.js';
import { declareConnectionOptions } from './connection-flags.js';
import { targetSpec, type ConnectionFlags } from './options.js';
import { loadCurrentTarget, loadTargets, saveCurrentTarget, saveTargets, targetsFile } from '../state/targets.js';
import { act, note, print, printJson, type CommandContext } from './context.js';
import { findTarget } from './target-use.js';
import { formatColumns } from '../core/text-layout.js';
import { prose } from './help-text.js';
import type { JsonOf } from '../core/contracts/index.js';
import type { targetJson as targetShape } from '../core/contracts/target.js';

const HELP = `
Targets live in $XDG_CONFIG_HOME/redlock-cli/targets.json (default ~/.config), readable by you
only (mode 0600). A password in the URL is NOT saved unless you pass --save-password; when a
command uses the target it takes the password from REDLOCK_PASSWORD_<NAME> (the name upper-cased,
- as _), else REDISCLI_AUTH, else asks on the terminal without echo. Nothing here prints a password.

Examples:
  redlock-cli target add local redis://127.0.0.1:6379
  redlock-cli target add prod rediss://app:secret@10.0.0.5:6380 --sentinel 10.0.0.5:26379,10.0.0.6:26379 --master-name main
  REDLOCK_PASSWORD_PROD=secret redlock-cli ls --target prod
  redlock-cli target use prod        # from now on, commands without connection options go to prod
  redlock-cli target list --json

The current target (\`target use\`) is used when nothing on the command line says where to connect
and REDIS_URL is unset or empty; \`target list\` marks it with *, the REPL's prompt shows it.

Exit codes here: 2 a bad name, URL or host list, or an existing name without --force; 4 no such target.`;

interface AddFlags extends ConnectionFlags {
  readonly savePassword?: boolean;
  readonly force?: boolean;
}

/** The JSON shape of list and show: never the password, only where it comes from. */
function targetJson(name: string, t: StoredTarget, current: string | undefined): JsonOf<typeof targetShape> {
  return {
    name,
    current: name === current,
    url: maskUrl(t.url),
    topology: t.cluster ? 'cluster' : t.sentinel ? 'sentinel' : 'standalone',
    sentinel: t.sentinel ?? null,
    masterName: t.masterName ?? null,
    cluster: t.cluster ?? null,
    password: t.auth,
    passwordEnv: targetPasswordEnv(name),
  };
}

function registerAdd(target: Command, ctx: CommandContext): void {
  const add = target
    .command('add')
    .summary('save a named connection: URL plus optional Sentinel or Cluster seeds')
    .argument('<name>', 'what you will pass to --target')
    .argument('[url]', "the server's URL (redis://, rediss://, redis-sentinel://...#master) or the connection options")
    .option('--save-password', 'keep the password (from the URL, -a or --askpass) in the file (plain text, mode 0600)')
    .option('-f, --force', 'replace a target of the same name');
  // The connection options every command takes, resolved the same way (the URL argument is --url).
  declareConnectionOptions(add, { sandbox: false, saving: true, urlArgument: 1 });
  add.action(
      act(ctx, async (name: string, _url: string | undefined, flags: AddFlags) => {
        checkTargetName(name);
        const endpoint = targetSpec(flags);
        if (endpoint.sentinels && !endpoint.masterName) throw new UsageError('--sentinel needs --master-name <name> (the master the sentinels monitor)');
        const stored = storedTarget(endpoint, flags.savePassword === true);
        const dropped = endpoint.password !== undefined && !flags.savePassword;
        const targets = loadTargets(ctx.env);
        if (targets[name] && !flags.force) throw new UsageError(`target "${name}" exists: pass --force to replace it`);
        saveTargets(ctx.env, { ...targets, [name]: stored });
        print(ctx, `saved target "${name}": ${maskUrl(stored.url)} (${describeTopology(stored)})`);
        if (dropped) note(ctx, `password not saved: set ${targetPasswordEnv(name)} or REDISCLI_AUTH, or type it when asked`);
        if (stored.auth === 'saved') note(ctx, `password saved in plain text in ${targetsFile(ctx.env)} (mode 0600)`);
        return ExitCode.ok;
      }),
    );
}

function registerList(target: Command, ctx: CommandContext): void {
  target
    .command('list')
    .alias('ls')
    .summary('list saved targets (passwords masked)')
    .option('--json', 'print a JSON array: name, current, url (masked), topology, sentinel, masterName, cluster, password, passwordEnv')
    .action(
      act(ctx, async (flags: { json?: boolean }) => {
        const entries = Object.entries(loadTargets(ctx.env));
        const current = loadCurrentTarget(ctx.env);
        if (flags.json) printJson(ctx, entries.map(([name, t]) => targetJson(name, t, current)));
        else if (entries.length === 0) note(ctx, 'no targets saved yet: redlock-cli target add <name> <url>');
        else {
          const rows = entries.map(([name, t]) => [name === current ? '*' : '', name, maskUrl(t.url), describeTopology(t), describeAuth(name, t.auth)]);
          for (const line of formatColumns([['CURRENT', 'NAME', 'URL', 'TOPOLOGY', 'PASSWORD'], ...rows])) print(ctx, line);
          if (current !== undefined && ctx.env.REDIS_URL?.trim()) note(ctx, `REDIS_URL is set: it wins over the current target "${current}"`);
        }
        return ExitCode.ok;
      }),
    );
}

function registerShow(target: Command, ctx: CommandContext): void {
  target
    .command('show')
    .summary('show one saved target (password masked)')
    .argument('<name>', 'target name')
    .option('--json', 'print one JSON object (the shape of target list --json)')
    .action(
      act(ctx, async (name: string, flags: { json?: boolean }) => {
        const t = findTarget(ctx, name);
        if (flags.json) printJson(ctx, targetJson(name, t, loadCurrentTarget(ctx.env)));
        else {
          print(ctx, name);
          const rows = [
            ['url', maskUrl(t.url)],
            ['topology', describeTopology(t)],
            ['password', describeAuth(name, t.auth)],
            ['file', targetsFile(ctx.env)],
          ];
          for (const line of formatColumns(rows)) print(ctx, `  ${line}`);
        }
        return ExitCode.ok;
      }),
    );
}

function registerRemove(target: Command, ctx: CommandContext): void {
  target
    .command('remove')
    .alias('rm')
    .summary('forget a saved target')
    .argument('<name>', 'target name')
    .action(
      act(ctx, async (name: string) => {
        findTarget(ctx, name);
        saveTargets(ctx.env, Object.fromEntries(Object.entries(loadTargets(ctx.env)).filter(([n]) => n !== name)));
        print(ctx, `removed target "${name}"`);
        return ExitCode.ok;
      }),
    );
}

function registerUse(target: Command, ctx: CommandContext): void {
  target
    .command('use')
    .summary('make a saved target the current one: commands without connection options go there')
    .argument('[name]', 'target name')
    .option('--clear', 'no current target: back to REDIS_URL and the default')
    .action(
      act(ctx, async (name: string | undefined, flags: { clear?: boolean }) => {
        if ((name === undefined) === (flags.clear !== true)) throw new UsageError('target use <name>, or target use --clear');
        if (name !== undefined) findTarget(ctx, name);
        saveCurrentTarget(ctx.env, name);
        print(ctx, name === undefined ? 'no current target: commands go to REDIS_URL or the default' : `current target: "${name}"`);
        if (name !== undefined && ctx.env.REDIS_URL?.trim()) note(ctx, 'REDIS_URL is set in this shell and wins over the current target');
        return ExitCode.ok;
      }),
    );
}

/** `target add|list|show|remove|use`: named connections for `--target <name>`. */
export function registerTarget(program: Command, ctx: CommandContext): void {
  const target = program
    .command('target')
    .summary('save Redis deployments by name, then use --target <name> on any command')
    .addHelpText('after', prose(ctx, HELP));
  registerAdd(target, ctx);
  registerList(target, ctx);
  registerShow(target, ctx);
  registerRemove(target, ctx);
  registerUse(target, ctx);
  for (const cmd of target.commands) cmd.exitOverride().configureOutput(program.configureOutput());
}
