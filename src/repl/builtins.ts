// The REPL's own commands (everything else is a CLI command run through run(argv, ctx)).

import { parseInspectKind } from '../core/decode/index.js';
import { formatDuration } from '../core/duration.js';
import type { InspectKind } from '../core/lock-view.js';
import { UsageError } from '../core/errors.js';
import type { BuiltinSpec } from '../core/repl/complete.js';
import { describeIdentity, type ReplClient } from './clients.js';
import { exitRepl } from './exit.js';
import { attachSandbox } from './attach.js';
import { builtinHelp, commandPathOf, replHelp, type BuiltinDoc } from './help.js';
import { parseLine } from './command-tree.js';
import { locksHere } from '../core/repl/selectors.js';
import { formatOwner } from '../core/owner.js';

/** `%2`, `2`: a job id as typed. */
function parseJobId(text: string): number | undefined {
  const match = /^%?(\d+)$/.exec(text);
  return match ? Number(match[1]) : undefined;
}
import type { ReplHost } from './host.js';
import { DEFAULT_STEP_SPEED, startStep, STEP_USAGE } from './step.js';
import { placed, urlTarget } from './target.js';

export interface Builtin extends BuiltinSpec, BuiltinDoc {
  run(session: ReplHost, client: ReplClient, args: readonly string[]): Promise<void> | void;
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
      if (!session.state.clients.some((c) => c.name === name)) {
        session.print(`new client ${name}: owner ${describeIdentity(session.addClient(name))}`);
      }
      session.dispatch({ type: 'client-chosen', name });
      session.refreshPanel();
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
      const { held, waiting } = locksHere(session.state);
      for (const c of session.state.clients) {
        const holds = held.filter((h) => h.client === c.name).map((h) => `${h.key} (${h.kind}${h.jobId !== undefined ? `, hold %${h.jobId}` : ''})`);
        const waits = waiting.filter((w) => w.client === c.name).map((w) => w.key);
        const what = [holds.length ? `holds ${holds.join(', ')}` : '', waits.length ? `waits for ${waits.join(', ')}` : ''].filter(Boolean);
        session.print(`${c.name === session.state.current ? '*' : ' '} ${c.name}  ${formatOwner(c.identity)}  ${what.join('; ') || 'holds nothing'}`, 'result');
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
      const { watched } = session.state.panel;
      if (keys.length === 0) {
        session.print(watched.length ? `watching ${watched.join(', ')}` : 'watching nothing: watch <key...>');
        return;
      }
      session.dispatch({ type: 'watched', keys, kind });
      session.refreshPanel();
    },
  },
  {
    name: 'unwatch',
    args: 'key',
    usage: 'unwatch [key...]',
    summary: 'take keys off the panel (all of them without arguments)',
    examples: ['unwatch orders', 'unwatch'],
    run: (session, _client, args) => session.dispatch({ type: 'unwatched', keys: args }),
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
      session.dispatch({ type: 'retargeted', to: placed(target), forgetBefore: true });
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
      if (session.state.jobs.length === 0) return session.print('no background commands');
      for (const job of session.state.jobs) {
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
        const job = session.state.jobs.find((j) => j.id === parseJobId(arg));
        if (!job) throw new UsageError(`no background command ${arg}: jobs lists them`);
        return job;
      });
      await Promise.all(jobs.map((job) => session.stopJob(job.id)));
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
      const lines = args.length === 0 ? replHelp(session, BUILTINS) : builtinHelp(BUILTINS, args);
      if (lines) return lines.forEach((line) => session.print(line, 'result'));
      // A CLI command: its own --help, found the way the CLI's `help sandbox up` finds it.
      const argv = [...commandPathOf(session, BUILTINS, args), '--help'];
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
