// The pieces a replay scenario is written from (incident-scenario.ts and the plans beside it):
// a plan's fields, and steps in the YAML surface of scenarios/README.md (durations as `120ms`).

/** One step as in YAML, key for key. */
export type Step = Record<string, unknown>;

/** What a plan decides about the scenario: its words, cast, steps and variants. */
export interface Plan {
  readonly summary: string;
  readonly narration: string;
  readonly lookFor: readonly string[];
  readonly sandbox?: Readonly<Record<string, unknown>>;
  /** Keys written before the clients start (application data under the lock's name). */
  readonly seed?: readonly Readonly<Record<string, unknown>>[];
  readonly clients: readonly (string | Readonly<Record<string, unknown>>)[];
  readonly steps: readonly Step[];
  /** Each variant's description and expectation, and any setting it changes (`resource`, or `lock: { key }`). */
  readonly variants: Readonly<Record<string, { readonly description: string; readonly expect: unknown; readonly resource?: Readonly<Record<string, unknown>>; readonly lock?: Readonly<Record<string, unknown>> }>>;
  /** The scenario's starvation bound, when the plan is about a wait or a stuck lock (else one from its waits). */
  readonly starvation?: string;
  /** The lateness its race tolerates, when its margins are wider than the default (a sixth of the shortest lease). */
  readonly tolerance?: string;
}

const LONGEST_REPLAY_LEASE_MS = 1000;

/** How much a replay shortens the recording's times: a lease of `leaseMs` replays as at most a second, so a 30 s lease takes about one. */
export const replayScale = (leaseMs: number): number => Math.min(1, LONGEST_REPLAY_LEASE_MS / Math.max(1, leaseMs));

/** The narration's last line when a replay's times were scaled down from the recording's (scale < 1). */
export const scaledNote = (scale: number): string => (scale < 1 ? `\n\nTimes are ${Math.round(1 / scale)} times shorter than recorded; the interleaving is the same.` : '');
export const ms = (n: number) => `${Math.max(0, Math.round(n))}ms`;
export const step = (at: number, fields: Step, only?: string | readonly string[]): Step => ({ at: ms(at), ...fields, ...(only ? { only } : {}) });
export const acquire = (at: number, client: string, options: Step, only?: string | readonly string[]) => step(at, { client, do: 'acquire', ...options }, only);
export const act = (at: number, client: string, what: string, options: Step = {}, only?: string | readonly string[]) => step(at, { client, do: what, ...options }, only);
export const inside = (client: string, from: number, to: number): Step[] => [act(from, client, 'enter'), act(to, client, 'leave'), act(to, client, 'release')];
