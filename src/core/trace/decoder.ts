// The trace decoder: MONITOR lines in, lock events out. It keeps what it learns along the way:
// client names (CLIENT SETNAME, HELLO ... SETNAME), script bodies by SHA (from EVAL and SCRIPT
// LOAD, so a later EVALSHA is understood), and the lock model. Lines must come in the server's
// order for one primary; one decoder per primary.
//
// Redis feeds a script's EVAL / EVALSHA / FCALL line to MONITOR before the commands the script
// runs (`lua`), so a script run is complete when the next line that is not `lua` arrives (a trace
// fence is one: see fence.ts), or when the stream ends (flush()). A function's body is not in the
// stream: FCALL is decoded from its commands alone. Neither is the body of a script loaded before
// the trace started: its digest is looked up in the catalogue of the libraries' scripts
// (digest-catalogue.ts); one found in neither is decoded from its commands and named once.

import { createHash } from 'node:crypto';
import { applyCommand } from './client-commands.js';
import { fenceNumber } from './fence.js';
import type { TraceClient, TraceEvent } from './events.js';
import { LockModel } from './lock-model.js';
import { isMultiLockArgv } from './multi-lock-effects.js';
import type { MonitorLine } from './monitor-line.js';
import type { EffectContext } from './effect-context.js';
import { AttemptsSeen, EventBuffer } from './decoder-buffers.js';
import { NO_LINES, PendingRun } from './pending-run.js';
import { knownDigest } from './digest-catalogue.js';
import { isLockKey, REDISSON_OWNER } from './keys.js';
import { applyScript } from './script-effects.js';
import type { ServerCommands } from './server-commands.js';
import { intentFromCommands, scriptIntent, type ScriptIntent } from './script-intent.js';

export interface DecoderOptions {
  /** Only locks whose name this accepts are traced (the `[pattern]` argument). */
  readonly wants?: (lock: string) => boolean;
  /** Names every event with this primary (`host:port`), when several are followed. */
  readonly node?: string;
  /** Client names known before the first line (CLIENT LIST at start): address -> name. */
  readonly clientNames?: ReadonlyMap<string, string>;
  /** The conditional writes the server has (asked at start); undefined: their outcome is unknown. */
  readonly commands?: ServerCommands | undefined;
}

/** A script body seen in the stream: what it means to do, and how a raw event shows it. */
interface LearntBody {
  readonly intent: ScriptIntent;
  /** Its first characters, white space folded: `if redis.call("get", K…`. */
  readonly shown: string;
}

/** Shared and never written to: what push() returns for a line that completed nothing. */
const NONE: TraceEvent[] = [];

const MAX_CLIENTS = 10_000;
/** Script bodies remembered as text (each may be kilobytes): enough for every library's scripts. */
const MAX_BODIES = 1000;

/** Outcomes of an acquisition attempt: each is preceded by an `attempt` of the same operation. */
const ATTEMPT_OUTCOMES: ReadonlySet<TraceEvent['kind']> = new Set(['acquired', 'refused', 'reader-join', 'queue-join']);

const sha1 = (body: string): string => createHash('sha1').update(body).digest('hex');

export class TraceDecoder {
  readonly model: LockModel;
  private readonly names = new Map<string, string>();
  private readonly clients = new Map<string, TraceClient>();
  private readonly intents = new Map<string, ScriptIntent>();
  /** Bodies already learnt: a client that sends EVAL every time (no EVALSHA) is not hashed and classified every time. */
  private readonly bodies = new Map<string, LearntBody>();
  /** Digests already reported as unknown scripts. */
  private readonly unknownShas = new Set<string>();
  private pending: PendingRun | undefined;
  /** The run flush() closed last, until the next client line. */
  private flushed: PendingRun | undefined;
  private readonly out = new EventBuffer();
  /**
   * The `lua` lines of the pending run, in one reused array (one run is pending at a time), copied
   * out at their count when it completes: an array grown by push from empty reserves 16 or more.
   */
  private readonly luaLines: MonitorLine[] = [];
  private luaCount = 0;
  /** The operation being decoded: what an event emitted without its own time and client gets. */
  private currentT = 0;
  private currentClient: TraceClient = {};
  /** The client clientOf() gave last. */
  private lastClient: TraceClient | undefined;
  private lastT = 0;
  /** The attempts the current operation (a client line and its script) announced. */
  private readonly attempted = new AttemptsSeen();
  private readonly ctx: EffectContext;

  constructor(private readonly opts: DecoderOptions = {}) {
    this.model = new LockModel(opts.node);
    for (const [addr, name] of opts.clientNames ?? []) this.names.set(addr, name);
    const wants = opts.wants ?? (() => true);
    this.ctx = {
      model: this.model,
      wants,
      commands: opts.commands,
      // Events are built fresh by the effects: filled in place, not copied (this runs for every operation).
      emit: (e) => {
        const event = e as { -readonly [K in keyof TraceEvent]: TraceEvent[K] };
        event.t ??= this.currentT;
        event.client ??= this.currentClient;
        if (this.opts.node) event.node = this.opts.node;
        if (ATTEMPT_OUTCOMES.has(event.kind)) this.attempt(event);
        this.out.add(event);
      },
    };
  }

  /** Server time of the newest line seen (epoch ms). */
  get serverTime(): number {
    return this.lastT;
  }

  /** Decodes one line; returns the events it completed (a pending script run, expiries, its own). */
  push(line: MonitorLine): TraceEvent[] {
    if (line.source === 'lua') {
      // Lines of a run that flush() closed early (the stream broke mid-script and came back, or a
      // caller flushed on a pause): they still belong to it, as no client line came between.
      if (!this.pending && this.flushed) this.pending = this.flushed.reopened();
      if (this.pending) this.luaLines[this.luaCount++] = line;
      return this.drain();
    }
    this.flushed = undefined;
    this.finishRun();
    this.attempted.clear();
    this.advance(line.t);
    // A fence completes what came before it and tells the server's time; it is not traffic.
    if (fenceNumber(line) !== undefined) return this.drain();
    const client = this.clientOf(line.source);
    this.currentT = line.t;
    this.currentClient = client;
    const cmd = line.args[0]!.toLowerCase();
    if (cmd === 'eval' || cmd === 'evalsha' || cmd === 'fcall') this.startRun(line, cmd, client);
    else if (cmd === 'script' && line.args[1]?.toLowerCase() === 'load' && line.args[2] !== undefined) this.learn(line.args[2]);
    else if (cmd === 'client' || cmd === 'hello') this.nameCommand(line, cmd);
    else applyCommand(this.ctx, line, client, cmd);
    return this.drain();
  }

  /** Completes a script run still waiting for more `lua` lines (the stream ended or broke). */
  flush(): TraceEvent[] {
    this.flushed = this.pending;
    this.finishRun();
    return this.drain();
  }

  /**
   * Expiries up to server time `now` while no line arrives (a live view's clock). A script run
   * still open is left alone: its `lua` lines may still be on their way.
   */
  tick(now: number): TraceEvent[] {
    if (!this.pending) this.advance(now);
    return this.drain();
  }

  /** Ends the holds of `lock` because it is absent on a promoted primary. */
  lostInFailover(lock: string, t: number, detail: string): TraceEvent[] {
    const s = this.model.get(lock);
    if (s) for (const e of this.model.lose(s, t, detail)) this.out.add(e);
    return this.drain();
  }

  /**
   * An acquisition attempt, once per lock and owner of an operation: announced at the EVAL line
   * when the script's purpose and owner are known before its commands run (Redisson's owner is in
   * ARGV), else just before the outcome that revealed it, at the time the request reached the server.
   */
  private attempt(e: Pick<TraceEvent, 'lock' | 'owner' | 'client' | 'library' | 'shared' | 't'>): void {
    if (!this.attempted.add(e.lock, e.owner ?? '')) return;
    // Built field by field in the order the event is written (no object spread: this runs per acquisition).
    const event: { -readonly [K in keyof TraceEvent]: TraceEvent[K] } = { kind: 'attempt', t: e.t ?? this.currentT, lock: e.lock };
    if (e.owner !== undefined) event.owner = e.owner;
    event.client = e.client ?? this.currentClient;
    if (e.library) event.library = e.library;
    if (e.shared) event.shared = true;
    if (this.opts.node) event.node = this.opts.node;
    this.out.add(event);
  }

  private advance(t: number): void {
    if (t > this.lastT) this.lastT = t;
    const expired = this.model.expireUntil(t);
    for (const e of expired) this.out.add(e);
  }

  /** The events completed so far; most lines complete none, and get no new array for it. */
  private drain(): TraceEvent[] {
    return this.out.take() ?? NONE;
  }

  /** One client object per address (shared by its events), replaced when its name changes. */
  private clientOf(addr: string): TraceClient {
    // A client's command and its script's EVAL come one after the other: the last client is
    // compared first (a Map lookup hashes the fresh address string every time).
    if (addr === this.lastClient?.addr) return this.lastClient;
    let client = this.clients.get(addr);
    if (!client) {
      const name = this.names.get(addr);
      client = name ? { addr, name } : { addr };
      // Short-lived connections each bring a new address: keep the cache bounded.
      if (this.clients.size >= MAX_CLIENTS) this.clients.clear();
      this.clients.set(addr, client);
    }
    this.lastClient = client;
    return client;
  }

  /** CLIENT / HELLO (`cmd`, lower case): a name set with SETNAME is remembered. */
  private nameCommand(line: MonitorLine, cmd: 'client' | 'hello'): void {
    let name: string | undefined;
    if (cmd === 'client') {
      if (line.args[1]?.toLowerCase() === 'setname') name = line.args[2];
    } else {
      const at = line.args.findIndex((a, i) => i > 0 && a.toLowerCase() === 'setname');
      if (at > 0) name = line.args[at + 1];
    }
    if (name === undefined) return;
    if (this.names.size >= MAX_CLIENTS) this.names.clear();
    if (name === '') this.names.delete(line.source);
    else this.names.set(line.source, name);
    this.clients.delete(line.source);
    this.lastClient = undefined;
  }

  private learn(body: string): LearntBody {
    const seen = this.bodies.get(body);
    if (seen !== undefined) return seen;
    const learnt = { intent: scriptIntent(body), shown: `${body.slice(0, 24).replace(/\s+/g, ' ')}…` };
    this.intents.set(sha1(body), learnt.intent);
    if (this.bodies.size >= MAX_BODIES) this.bodies.clear();
    this.bodies.set(body, learnt);
    return learnt;
  }

  private startRun(line: MonitorLine, cmd: string, client: TraceClient): void {
    const [, script, numkeys] = line.args;
    if (script === undefined) return;
    const sha = cmd === 'evalsha' ? script.toLowerCase() : undefined;
    const body = cmd === 'eval' ? this.learn(script) : undefined;
    const known = body ? body.intent : sha !== undefined ? (this.intents.get(sha) ?? knownDigest(sha)?.intent) : 'unknown';
    const intent = known ?? 'unknown';
    const n = Math.max(0, Number(numkeys) || 0);
    const keys = line.args.slice(3, 3 + n);
    const argv = line.args.slice(3 + n);
    this.pending = new PendingRun(line, client, intent, keys, argv, body?.shown, known === undefined ? sha : undefined);
    const lock = keys[0];
    const owner = argv.find((a) => REDISSON_OWNER.test(a));
    // A group multi-lock's locks are its values, known once its commands ran: announced with their outcomes.
    const group = isMultiLockArgv(argv);
    if (intent === 'acquire' && !group && lock !== undefined && owner !== undefined && isLockKey(lock) && this.ctx.wants(lock)) {
      this.attempt({ lock, owner, client, library: 'redisson', t: line.t });
    }
  }

  private finishRun(): void {
    const run = this.pending;
    if (!run) return;
    this.pending = undefined;
    const prevT = this.currentT;
    const prevClient = this.currentClient;
    this.currentT = run.line.t;
    this.currentClient = run.client;
    run.lua = this.luaCount > 0 ? this.luaLines.slice(0, this.luaCount) : NO_LINES;
    this.luaCount = 0;
    if (run.unknownSha !== undefined) run.intent = intentFromCommands(run.keys, run.lua.map((l) => l.args));
    const before = this.out.count;
    applyScript(this.ctx, run);
    if (run.unknownSha !== undefined) this.reportUnknown(run, run.unknownSha, this.out.since(before));
    this.currentT = prevT;
    this.currentClient = prevClient;
  }

  /**
   * Names a script the trace could only decode from its commands, once per digest, when it ran
   * on a lock (a NOSCRIPT reply ran nothing; the client's SCRIPT LOAD comes next).
   */
  private reportUnknown(run: PendingRun, sha: string, events: readonly TraceEvent[]): void {
    if (this.unknownShas.has(sha) || run.lua.length === 0) return;
    const lock = events.find((e) => e.lock)?.lock ?? run.keys.find((k) => this.model.has(k) && this.ctx.wants(k));
    if (lock === undefined) return;
    if (this.unknownShas.size >= MAX_CLIENTS) this.unknownShas.clear();
    this.unknownShas.add(sha);
    this.ctx.emit({ kind: 'raw', lock, detail: `unknown script ${sha} touching ${lock}` });
  }
}

/** Decodes a whole stream of lines (a saved log): every event, in order. */
export function decodeLines(lines: Iterable<MonitorLine>, opts: DecoderOptions = {}): TraceEvent[] {
  const decoder = new TraceDecoder(opts);
  const events: TraceEvent[] = [];
  for (const line of lines) events.push(...decoder.push(line));
  events.push(...decoder.flush());
  return events;
}
