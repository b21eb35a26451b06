// The REPL session as one value, changed only by `replReducer`: its clients and the current one,
// where commands go, what the clients hold (folded from the commands' typed outcomes), background
// jobs, the attached and started sandboxes, the panel's reads and the output lines. Pure: the
// session (src/repl/session.ts) dispatches actions and keeps the connections and pollers in step.

import type { InspectKind, LockView } from '../lock-view.js';
import type { CommandOutcome } from '../outcomes.js';
import type { RedissonOwner } from '../owner.js';
import type { PollState } from '../poller.js';
import { foldHoldEvent, type HoldJob, type JobState } from './hold-job.js';
import { emptyPanel, foldPoll } from './panel.js';
import type { HeldLock, OutputLine, OutputTone, PanelScreen, RunningView, StepView, WhoPanel } from './screen-parts.js';

export type { HoldJob, JobState } from './hold-job.js';

/** A named client: its Redisson-style identity and every owner id it writes (Redisson form, token form). */
export interface ClientState {
  readonly name: string;
  readonly identity: RedissonOwner;
  readonly owners: readonly string[];
}

/** A target as the state needs it; the host's type adds how to connect. */
export interface TargetRef {
  readonly label: string;
}

/** A target with the names the owner memory gives locks taken there (a Redlock sandbox has two). */
export interface Placed<T> {
  readonly target: T;
  readonly names: readonly string[];
}

export interface Running {
  readonly view: RunningView;
  /** `acquire --wait`: the key the client waits for, for the panel. */
  readonly waitKey?: string | undefined;
}

export interface SandboxState<S> {
  readonly name: string;
  readonly status?: S | undefined;
  readonly error?: string | undefined;
}

export interface ReplState<T extends TargetRef = TargetRef, S = unknown> {
  readonly clients: readonly ClientState[];
  readonly current: string;
  readonly target: Placed<T>;
  /** Targets used in this session by their owner-memory names: locks left there are released there at exit. */
  readonly knownTargets: Readonly<Record<string, T>>;
  /** The target before a sandbox was attached: where commands go again once it is detached. */
  readonly beforeAttach?: Placed<T> | undefined;
  readonly sandbox?: SandboxState<S> | undefined;
  /** Sandboxes `sandbox up` started in this session: `exit` offers to stop them. */
  readonly startedSandboxes: readonly string[];
  /** Locks `acquire` (or `renew`) left held by our clients, as their outcomes said. */
  readonly acquired: readonly HeldLock[];
  readonly jobs: readonly JobState[];
  readonly running?: Running | undefined;
  /** Keys to read as a given kind (their data alone does not say: a token lock is a plain string). */
  readonly kindHints: Readonly<Record<string, InspectKind>>;
  readonly panel: PanelScreen;
  readonly stepping?: StepView | undefined;
  /** The newest `who` report, shown on the panel until the next one. */
  readonly who?: WhoPanel | undefined;
  readonly output: readonly OutputLine[];
  /**
   * Set while a typed line runs: what the panel noticed meanwhile (a lock changing hands, its
   * connection dropping), printed once the line is done. A read answers whenever Redis does, so
   * printed at once its line would land inside the command's own output, at a place that
   * depended on timing; held back, a line's output stays together and the panel's follows it.
   */
  readonly noticedDuringLine?: readonly string[] | undefined;
  readonly history: readonly string[];
  readonly ended: boolean;
}

export type ReplAction<T extends TargetRef = TargetRef, S = unknown> =
  | { readonly type: 'print'; readonly text: string; readonly tone: OutputTone }
  | { readonly type: 'client-added'; readonly client: ClientState }
  | { readonly type: 'client-chosen'; readonly name: string }
  /** Commands go to this target now; `connect` also forgets the target from before a sandbox. */
  | { readonly type: 'retargeted'; readonly to: Placed<T>; readonly forgetBefore?: boolean }
  | { readonly type: 'sandbox-attached'; readonly name: string; readonly to: Placed<T> }
  /** Stops showing the sandbox; `restore` sends commands back to the target from before it. */
  | { readonly type: 'sandbox-detached'; readonly restore: boolean }
  /** What a command of `client` did; `jobId`: it runs in the background as that job. */
  | {
      readonly type: 'outcome';
      readonly client: string;
      readonly jobId?: number | undefined;
      readonly outcome: CommandOutcome;
    }
  | { readonly type: 'job-started'; readonly job: JobState }
  | { readonly type: 'job-ended'; readonly id: number }
  | { readonly type: 'running'; readonly running: Running | undefined }
  | { readonly type: 'cancelling' }
  | { readonly type: 'watched'; readonly keys: readonly string[]; readonly kind?: InspectKind | undefined }
  /** No keys: all of them. */
  | { readonly type: 'unwatched'; readonly keys: readonly string[] }
  | { readonly type: 'kind-forgotten'; readonly key: string }
  | { readonly type: 'polled'; readonly poll: PollState<readonly LockView[]> }
  | { readonly type: 'panel-connection'; readonly down: boolean }
  | { readonly type: 'sandbox-polled'; readonly poll: PollState<S> }
  | { readonly type: 'stepping'; readonly view: StepView | undefined }
  | { readonly type: 'history'; readonly line: string }
  /** A typed line starts running, and is done (its error, if any, printed). */
  | { readonly type: 'line-started' }
  | { readonly type: 'line-done' }
  | { readonly type: 'ended' };

/** Lines of history kept. */
export const HISTORY_KEPT = 500;

export function initialReplState<T extends TargetRef, S = unknown>(init: {
  readonly clients: readonly ClientState[];
  readonly target: Placed<T>;
  readonly intervalMs: number;
  readonly history?: readonly string[] | undefined;
}): ReplState<T, S> {
  return {
    clients: init.clients,
    current: init.clients[0]?.name ?? 'A',
    target: init.target,
    knownTargets: known({}, init.target),
    startedSandboxes: [],
    acquired: [],
    jobs: [],
    kindHints: {},
    panel: emptyPanel(init.intervalMs),
    output: [],
    history: [...(init.history ?? [])],
    ended: false,
  };
}

const known = <T>(map: Readonly<Record<string, T>>, placed: Placed<T>): Record<string, T> => ({
  ...map,
  ...Object.fromEntries(placed.names.map((name) => [name, placed.target])),
});

/** `text` with the client's name after each owner id of ours ("…:1 (A)"), so lines say who did it. */
export function nameOwners(text: string, clients: readonly ClientState[]): string {
  let out = text;
  for (const client of clients) {
    // Owner ids are hex, dashes and colons: nothing a regular expression treats specially.
    for (const id of client.owners) out = out.replace(new RegExp(`${id}(:write)?`, 'g'), `$& (${client.name})`);
  }
  return out;
}

function print<T extends TargetRef, S>(state: ReplState<T, S>, text: string, tone: OutputTone): ReplState<T, S> {
  const id = (state.output[state.output.length - 1]?.id ?? -1) + 1;
  return { ...state, output: [...state.output, { id, text, tone }] };
}

/** A line of the panel's: printed now, or after the typed line that is running. */
function notice<T extends TargetRef, S>(state: ReplState<T, S>, text: string): ReplState<T, S> {
  const held = state.noticedDuringLine;
  return held ? { ...state, noticedDuringLine: [...held, text] } : print(state, text, 'event');
}

/** Prints what the panel noticed while a line ran, and stops holding its lines back. */
function printNoticed<T extends TargetRef, S>(state: ReplState<T, S>): ReplState<T, S> {
  const held = state.noticedDuringLine ?? [];
  const after: ReplState<T, S> = { ...state, noticedDuringLine: undefined };
  return held.reduce((s, text) => print(s, text, 'event'), after);
}

function retarget<T extends TargetRef, S>(state: ReplState<T, S>, to: Placed<T>): ReplState<T, S> {
  // What was read from the previous target says nothing about this one.
  const panel = { ...emptyPanel(state.panel.intervalMs), watched: state.panel.watched };
  return { ...state, target: to, knownTargets: known(state.knownTargets, to), panel };
}

const sameLock = (a: { key: string; target?: string | undefined; owner: string }, b: typeof a): boolean =>
  a.key === b.key && a.target === b.target && a.owner === b.owner;

/** Folds what a command did into the state. */
function applyOutcome<T extends TargetRef, S>(
  state: ReplState<T, S>,
  client: string,
  jobId: number | undefined,
  o: CommandOutcome,
): ReplState<T, S> {
  switch (o.type) {
    case 'lock-acquired':
    case 'lock-renewed': {
      // Only a lock taken under the client's own owner id is its to release at exit (not one taken with --owner).
      if (!state.clients.find((c) => c.name === client)?.owners.includes(o.owner)) return state;
      const lock: HeldLock = {
        client,
        key: o.key,
        kind: o.kind,
        owner: o.owner,
        target: o.target,
        via: 'acquire',
        leaseMs: o.leaseMs,
        since: o.at,
        renewals: 0,
      };
      return { ...state, acquired: [...state.acquired.filter((l) => !sameLock(l, lock)), lock] };
    }
    case 'lock-released':
      return o.gone ? { ...state, acquired: state.acquired.filter((l) => !sameLock(l, o)) } : state;
    case 'lock-force-unlocked':
      return { ...state, acquired: state.acquired.filter((l) => l.key !== o.key || l.target !== o.target) };
    case 'hold-event': {
      const job = state.jobs.find((j) => j.id === jobId);
      if (!job?.hold || job.hold.key !== o.key) return state;
      const facts = {
        kind: o.kind,
        owner: o.owner,
        target: o.target,
        where: state.knownTargets[o.target]?.label ?? o.target,
      };
      const hold: HoldJob = foldHoldEvent(job, job.hold, facts, o.event);
      return { ...state, jobs: state.jobs.map((j) => (j === job ? { ...j, hold } : j)) };
    }
    case 'who-report':
      return { ...state, who: { target: state.knownTargets[o.target]?.label ?? o.target, report: o.report } };
    case 'sandbox-up':
      return { ...state, startedSandboxes: [...state.startedSandboxes.filter((n) => n !== o.name), o.name] };
    case 'sandbox-down': {
      const next = { ...state, startedSandboxes: state.startedSandboxes.filter((n) => n !== o.name) };
      if (state.sandbox?.name !== o.name) return next;
      const back = detach(next, true);
      return print(back, `sandbox "${o.name}" is down: commands go to ${back.target.target.label} again`, 'repl');
    }
  }
}

function detach<T extends TargetRef, S>(state: ReplState<T, S>, restore: boolean): ReplState<T, S> {
  const next = { ...state, sandbox: undefined };
  return restore && state.beforeAttach ? retarget(next, state.beforeAttach) : next;
}

/** The next state after one action. Pure: no I/O, no clock. */
export function replReducer<T extends TargetRef, S>(state: ReplState<T, S>, action: ReplAction<T, S>): ReplState<T, S> {
  switch (action.type) {
    case 'print':
      return print(state, action.text, action.tone);
    case 'client-added':
      return { ...state, clients: [...state.clients.filter((c) => c.name !== action.client.name), action.client] };
    case 'client-chosen':
      return state.clients.some((c) => c.name === action.name) ? { ...state, current: action.name } : state;
    case 'retargeted': {
      const next = retarget(state, action.to);
      return action.forgetBefore ? { ...next, sandbox: undefined, beforeAttach: undefined } : next;
    }
    case 'sandbox-attached': {
      const beforeAttach = state.sandbox ? state.beforeAttach : state.target;
      return { ...retarget(state, action.to), beforeAttach, sandbox: { name: action.name } };
    }
    case 'sandbox-detached':
      return detach(state, action.restore);
    case 'outcome':
      return applyOutcome(state, action.client, action.jobId, action.outcome);
    case 'job-started':
      return { ...state, jobs: [...state.jobs, action.job] };
    case 'job-ended':
      return { ...state, jobs: state.jobs.filter((j) => j.id !== action.id) };
    case 'running':
      return { ...state, running: action.running };
    case 'cancelling':
      return state.running
        ? { ...state, running: { ...state.running, view: { ...state.running.view, cancelling: true } } }
        : state;
    case 'watched': {
      const kindHints = action.kind
        ? { ...state.kindHints, ...Object.fromEntries(action.keys.map((k) => [k, action.kind!])) }
        : state.kindHints;
      return {
        ...state,
        kindHints,
        panel: { ...state.panel, watched: [...new Set([...state.panel.watched, ...action.keys])] },
      };
    }
    case 'unwatched': {
      const watched = action.keys.length === 0 ? [] : state.panel.watched.filter((k) => !action.keys.includes(k));
      return { ...state, panel: { ...state.panel, watched } };
    }
    case 'kind-forgotten': {
      const { [action.key]: _dropped, ...kindHints } = state.kindHints;
      return { ...state, kindHints };
    }
    case 'polled': {
      const { panel, lines } = foldPoll(state.panel, action.poll);
      return lines.reduce((s, line) => notice(s, nameOwners(line, s.clients)), { ...state, panel });
    }
    case 'panel-connection': {
      const label = state.target.target.label;
      const next = { ...state, panel: { ...state.panel, reconnecting: action.down } };
      return notice(next, action.down ? `panel: connection to ${label} lost, reconnecting` : `panel: reconnected to ${label}`);
    }
    case 'sandbox-polled': {
      const sandbox = state.sandbox;
      if (!sandbox) return state;
      if (action.poll.type === 'ok') return { ...state, sandbox: { name: sandbox.name, status: action.poll.snapshot } };
      if (action.poll.type === 'retrying') return { ...state, sandbox: { ...sandbox, error: action.poll.error } };
      return state;
    }
    case 'stepping':
      return { ...state, stepping: action.view };
    case 'history': {
      const line = action.line.trim();
      if (line === '' || state.history[state.history.length - 1] === line) return state;
      return { ...state, history: [...state.history, line].slice(-HISTORY_KEPT) };
    }
    case 'line-started':
      return { ...state, noticedDuringLine: state.noticedDuringLine ?? [] };
    case 'line-done':
      return printNoticed(state);
    case 'ended':
      return { ...printNoticed(state), ended: true, running: undefined };
  }
}
