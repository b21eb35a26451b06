// The REPL's own commands (everything else is a CLI command run through run(argv, ctx)).

import { parseInspectKind } from '../core/decode/index.js';
import { formatDuration } from '../core/duration.js';
import type { InspectKind } from '../core/lock-view.js';
import { UsageError } from '../core/errors.js';
import type { BuiltinSpec } from '../core/repl/complete.js';
import { createClient, describeIdentity, type ReplClient } from './clients.js';
import { exitRepl } from './exit.js';
import { attachSandbox } from './attach.js';
import { replHelp } from './help.js';
import { parseJobId } from './jobs.js';
import type { ReplSession } from './session.js';
import { DEFAULT_STEP_SPEED, startStep, STEP_USAGE } from './step.js';
import { urlTarget } from './target.js';

export interface Builtin extends BuiltinSpec {
  readonly usage: string;
  readonly summary: string;
  run(session: ReplSession, client: ReplClient, args: readonly string[]): Promise<void> | void;
}

const none = (name: string, args: readonly string[]): void => {
  if (args.length > 0) throw new UsageError(`${name} takes no arguments`);
};

export const BUILTINS: readonly Builtin[] = [
  {
    name: 'as',
    args: 'client-then-line',
    usage: 'as <client> <command...>',
    summary: 'run one command as another client (its own owner id and connection)',
    run: () => undefined, // handled before dispatch: it picks the client of the rest of the line
  },
  {
    name: 'use',
    args: 'client',
    usage: 'use <client>',
    summary: 'make a client the current one (a new name creates it)',
    run(session, _client, args) {
      const [name, ...rest] = args;
      if (name === undefined || rest.length > 0) throw new UsageError('use <client>: one name, e.g. use C');
      if (!session.clients.has(name)) {
        const created = createClient(name);
        session.clients.set(name, created);
        session.print(`new client ${name}: owner ${describeIdentity(created)}`);
      }
      session.current = name;
      session.afterLocksChanged();
    },
  },
  {
    name: 'clients',
    args: 'none',
    usage: 'clients',
    summary: 'list the clients, their owner ids and what they hold',
    run(session, _client, args) {
      none('clients', args);
      const { held, waiting } = session.locks();
      for (const c of session.clients.values()) {
        const holds = held.filter((h) => h.client === c.name).map((h) => `${h.key} (${h.kind}${h.jobId !== undefined ? `, hold %${h.jobId}` : ''})`);
        const waits = waiting.filter((w) => w.client === c.name).map((w) => w.key);
        const what = [holds.length ? `holds ${holds.join(', ')}` : '', waits.length ? `waits for ${waits.join(', ')}` : ''].filter(Boolean);
        session.print(`${c.name === session.current ? '*' : ' '} ${c.name}  ${describeIdentity(c)}  ${what.join('; ') || 'holds nothing'}`, 'result');
      }
    },
  },
  {
    name: 'watch',
    args: 'key',
    usage: 'watch <key...> [--kind k]',
    summary: 'show keys on the panel (one round trip per tick for all of them); --kind reads them as that kind, like inspect --kind',
    run(session, _client, args) {
      const keys: string[] = [];
      let kind: InspectKind | undefined;
      for (let i = 0; i < args.length; i++) {
        if (args[i] === '--kind' || args[i] === '-k') kind = parseInspectKind(args[++i] ?? '');
        else keys.push(args[i]!);
      }
      if (keys.length === 0) {
        session.print(session.watched.length ? `watching ${session.watched.join(', ')}` : 'watching nothing: watch <key...>');
        return;
      }
      if (kind) for (const key of keys) session.kindHints.set(key, kind);
      session.watch(keys);
    },
  },
  {
    name: 'unwatch',
    args: 'key',
    usage: 'unwatch [key...]',
    summary: 'take keys off the panel (all of them without arguments)',
    run: (session, _client, args) => session.unwatch(args),
  },
  {
    name: 'connect',
    args: 'none',
    usage: 'connect <url>',
    summary: 'send commands to another Redis (redis://[user:password@]host:port[/db]); detaches a sandbox',
    run(session, _client, args) {
      if (args.length !== 1) throw new UsageError('connect <url>: e.g. connect redis://127.0.0.1:6380');
      const target = urlTarget(args[0]!);
      session.detachSandbox();
      session.beforeAttach = undefined;
      session.setTarget(target);
      session.print(`commands go to ${target.label} now`);
    },
  },
  {
    name: 'attach',
    args: 'sandbox',
    usage: 'attach [sandbox]',
    summary: 'send commands to a sandbox and show its nodes on the panel',
    run: (session, _client, args) => attachSandbox(session, args[0]),
  },
  {
    name: 'jobs',
    args: 'none',
    usage: 'jobs',
    summary: 'list background commands',
    run(session, _client, args) {
      none('jobs', args);
      if (session.jobs.size === 0) return session.print('no background commands');
      for (const job of session.jobs.values()) {
        session.print(`%${job.id}  ${job.client}  ${formatDuration(Date.now() - job.since)}  ${job.line}`, 'result');
      }
    },
  },
  {
    name: 'cancel',
    args: 'none',
    usage: 'cancel <%job...>',
    summary: 'stop background commands like Ctrl-C would (a hold releases its lock)',
    async run(session, _client, args) {
      if (args.length === 0) throw new UsageError('cancel <%job...>: which one? (jobs lists them)');
      const jobs = args.map((arg) => {
        const job = session.jobs.get(parseJobId(arg) ?? -1);
        if (!job) throw new UsageError(`no background command ${arg}: jobs lists them`);
        return job;
      });
      await Promise.all(jobs.map((job) => session.stopJob(job)));
    },
  },
  {
    name: 'step',
    args: 'scenario',
    usage: STEP_USAGE,
    summary: `run a scenario one step per Enter on its own sandbox (at ${DEFAULT_STEP_SPEED}x speed unless --speed), the panel showing Redis after each step`,
    run: (session, _client, args) => startStep(session, args),
  },
  {
    name: 'continue',
    args: 'none',
    usage: 'continue',
    summary: 'run the rest of the scenario being stepped through without stopping',
    run(session, _client, args) {
      none('continue', args);
      if (!session.stepRun) throw new UsageError('no scenario is being stepped through: step <scenario> starts one');
      session.stepRun.continueAll();
    },
  },
  {
    name: 'help',
    args: 'command',
    usage: 'help [command]',
    summary: "this list, or a command's own help",
    async run(session, client, args) {
      if (args.length === 0) {
        for (const line of replHelp(session)) session.print(line, 'result');
        return;
      }
      const builtin = BUILTINS.find((b) => b.name === args[0]);
      if (builtin) return session.print(`${builtin.usage}: ${builtin.summary}`, 'result');
      const argv = [...args, '--help'];
      await session.runForeground(client, argv, `help ${args.join(' ')}`, { path: [], afterPath: 0, positionals: [], flags: new Set() });
    },
  },
  {
    name: 'exit',
    args: 'none',
    usage: 'exit',
    summary: 'leave (also quit, Ctrl-D): asks before releasing what the clients hold and before stopping sandboxes started here',
    run: (session) => exitRepl(session),
  },
  {
    name: 'quit',
    args: 'none',
    usage: 'quit',
    summary: 'the same as exit',
    run: (session) => exitRepl(session),
  },
];
