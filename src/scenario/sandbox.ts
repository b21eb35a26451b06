import { proxyHook } from '../sandbox/proxy-hook.js';
import { startSandbox, withFakeClocks, type SandboxHandle, type StartOptions } from '../sandbox/index.js';
import { isFaultStep, type Scenario } from './model.js';

// Fault verbs that work through the sandbox's fault proxy.
const PROXY_FAULTS = new Set(['latency', 'partition', 'heal']);

/** Whether any variant of the scenario needs the sandbox's fault proxy in front of its nodes. */
export function needsProxy(scenario: Scenario): boolean {
  return scenario.steps.some((s) => isFaultStep(s) && PROXY_FAULTS.has(s.fault));
}

export interface ScenarioSandboxOptions {
  /** Directory holding sandboxes (default: the state dir's). */
  readonly dir?: string | undefined;
  readonly name?: string | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly onProgress?: ((line: string) => void) | undefined;
  /** Keep the nodes running after this process exits (`scenario run --keep-sandbox`). */
  readonly persist?: boolean | undefined;
  /** The caller's environment (state dir, PATH); default process.env. The CLI passes its own, so `sandbox status` finds a kept sandbox. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The server binary every node runs (--redis-server); default $REDLOCK_REDIS_SERVER, then PATH. */
  readonly redisServer?: string | undefined;
}

/**
 * Starts the sandbox a scenario asks for: its topology and node count, the fault proxy in this
 * process when a step uses latency / partition / heal, libfaketime when it asks for real clocks.
 * Every variant of a run can share it (runVariant puts it back in shape between variants).
 */
export async function startScenarioSandbox(scenario: Scenario, opts: ScenarioSandboxOptions = {}): Promise<SandboxHandle> {
  let options: StartOptions = {
    topology: scenario.sandbox.topology,
    name: opts.name ?? `scenario-${scenario.name}`.slice(0, 32),
    ...(scenario.sandbox.nodes !== undefined ? { nodes: scenario.sandbox.nodes } : {}),
    ...(needsProxy(scenario) ? { proxy: proxyHook({ mode: 'in-process' }) } : {}),
    ...(opts.dir !== undefined ? { dir: opts.dir } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.persist ? { persist: true } : {}),
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.redisServer !== undefined ? { redisServer: opts.redisServer } : {}),
  };
  if (scenario.sandbox.fakeClock) options = (await withFakeClocks(options)).options;
  return startSandbox(options);
}
