// The REPL's own commands (everything else is a CLI command run through run(argv, ctx)).

import { parseInspectKind } from '../core/decode/index.js';
import { formatDuration } from '../core/duration.js';
import type { InspectKind } from '../core/lock-view.js';
import { UsageError } from '../core/errors.js';
import type { BuiltinSpec } from '../core/repl/complete.js';
import { createClient, describeIdentity, type ReplClient } from './clients.js';
import { exitRepl } from './exit.js';
import { attachSandbox } from './attach.js';
import { builtinHelp, commandPathOf, replHelp } from './help.js';
import { parseLine } from './command-tree.js';
import { parseJobId } from './jobs.js';
import type { ReplSession } from './session.js';
import { DEFAULT_STEP_SPEED, startStep, STEP_USAGE } from './step.js';
import { urlTarget } from './target.js';

export interface Builtin extends BuiltinSpec {
  readonly usage: string;
  readonly summary: string;
  /** Lines as typed at the prompt, for `help <name>`. */
  readonly examples: readonly string[];
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
    examples: ['as B acquire orders --lease 30s', 'as B hold orders --wait 10s'],
    run: () => undefined, // handled before dispatch: it picks the client of the rest of the line
  },
  {
    name: 'use',
    args: 'client',
    usage: 'use <client>',
    summary: 'make a client the current one (a new name creates it)',
    examples: ['use B', 'use C'],
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
    examples: ['clients'],
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
    examples: ['watch orders', 'watch orders stock --kind fair'],
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
    examples: ['unwatch orders', 'unwatch'],
    run: (session, _client, args) => session.unwatch(args),
  },
  {
    name: 'connect',
    args: 'none',
    usage: 'connect <url>',
    summary: 'send commands to another Redis (redis://[user:password@]host:port[/db]); detaches a sandbox',
    examples: ['connect redis://127.0.0.1:6380', 'connect 127.0.0.1:6380'],
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
    examples: ['attach', 'attach chaos'],
    run: (session, _client, args) => attachSandbox(session, args[0]),
  },
  {
    name: 'jobs',
    args: 'none',
    usage: 'jobs',
    summary: 'list background commands',
    examples: ['jobs'],
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
    examples: ['cancel %1', 'cancel %1 %2'],
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
    examples: ['step expired-lease-misdeletion', 'step gc-pause-no-fencing fixed --speed 0.5'],
    run: (session, _client, args) => startStep(session, args),
  },
  {
    name: 'continue',
    args: 'none',
    usage: 'continue',
    summary: 'run the rest of the scenario being stepped through without stopping',
    examples: ['continue'],
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
    examples: ['help', 'help watch', 'help sandbox up'],
    async run(session, client, args) {
      const lines = args.length === 0 ? replHelp(session) : builtinHelp(args);
      if (lines) return lines.forEach((line) => session.print(line, 'result'));
      // A CLI command: its own --help, found the way the CLI's `help sandbox up` finds it.
      const argv = [...commandPathOf(session, args), '--help'];
      await session.runForeground(client, argv, `help ${args.join(' ')}`, parseLine(session.tree, argv));
    },
  },
  {
    name: 'exit',
    args: 'none',
    usage: 'exit',
    summary: 'leave (also quit, Ctrl-D): asks before releasing what the clients hold and before stopping sandboxes started here',
    examples: ['exit'],
    run: (session) => exitRepl(session),
  },
  {
    name: 'quit',
    args: 'none',
    usage: 'quit',
    summary: 'the same as exit',
    examples: ['quit'],
    run: (session) => exitRepl(session),
  },
];
