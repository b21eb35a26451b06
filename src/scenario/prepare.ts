import { UsageError } from '../core/errors.js';
import { connect } from '../redis/connection.js';
import { SENTINEL_REFAILOVER_MS } from '../sandbox/config.js';
import { waitReplicationLive } from '../sandbox/form-replication.js';
import type { SandboxHandle } from '../sandbox/handle.js';
import type { SandboxStatus } from '../sandbox/status.js';
import { call } from '../sandbox/resp.js';
import { logPath } from '../sandbox/state.js';
import { sleep } from '../core/sleep.js';
import { applyConfig, desiredConfig } from './config.js';
import { isFaultStep, stepsOf, type Scenario, type Variant } from './model.js';
import { clientTargets, redisNodes } from './targets.js';

/**
 * Puts the sandbox in the state a variant starts from, before its clock starts: nodes an earlier
 * variant killed or paused are back, their clocks on real time, proxies and replication stalls healed, the variant's
 * settings applied, every primary flushed, the seed written, and on replicated topologies a probe
 * write acknowledged by every replica (a fresh link can carry nothing for a while, and a lock
 * written then is "lost" with no fault at all).
 */
export async function prepareSandbox(sandbox: SandboxHandle, scenario: Scenario, variant: Variant, signal?: AbortSignal): Promise<void> {
  await revive(sandbox);
  await applyConfig(sandbox, desiredConfig(scenario, variant));
  const status = await statusWithPrimary(sandbox);
  const primaries = status.nodes.filter((n) => n.role === 'primary');
  if (primaries.length === 0) throw new UsageError(`sandbox "${sandbox.name}" has no node answering as primary`);
  for (const p of primaries) await call(p.port, ['FLUSHALL'], 2000);
  await seed(sandbox, scenario);
  if (sandbox.topology === 'replicated' || sandbox.topology === 'sentinel') {
    const primary = await sandbox.node('primary');
    const replicas = status.nodes.filter((n) => n.role === 'replica' || (n.role === 'primary' && n.name !== primary.name));
    await waitReplicationLive(primary.port, replicas.map((r) => ({ port: r.port, log: logPath(sandbox.state.dir, r.name) })), { signal });
  }
  // Fresh sentinels flap once after start; a fault injected before they settle races that.
  const settledAt = sandbox.state.settledAt ?? 0;
  if (scenario.steps.some(isFaultStep) && settledAt > Date.now()) await sleep(settledAt - Date.now(), signal);
  await refailoverWindow(sandbox, scenario, variant, signal);
}

/**
 * Sentinel refuses to fail the same master over again within SENTINEL_REFAILOVER_MS of the last
 * failover (an earlier variant's), and the sandbox's failover waits that out: the variant's
 * failover would come seconds after its time, behind steps that count on it. Wait here instead,
 * before the clock starts, until the variant's first failover step falls after the window (its
 * time taken at speed 1; a faster run may still wait a little inside the fault).
 */
async function refailoverWindow(sandbox: SandboxHandle, scenario: Scenario, variant: Variant, signal?: AbortSignal): Promise<void> {
  if (sandbox.topology !== 'sentinel' || sandbox.state.lastFailoverAt === undefined) return;
  const first = stepsOf(scenario, variant.name).find((s) => isFaultStep(s) && s.fault === 'failover');
  if (!first) return;
  const wait = sandbox.state.lastFailoverAt + SENTINEL_REFAILOVER_MS - first.at - Date.now();
  if (wait > 0) await sleep(wait, signal);
}

async function revive(sandbox: SandboxHandle): Promise<void> {
  const status = await sandbox.status();
  for (const node of status.nodes) {
    if (node.state === 'killed' || node.state === 'exited') await sandbox.restart(node.name);
    else if (node.state === 'paused') await sandbox.resume(node.name);
  }
  for (const node of redisNodes(sandbox)) {
    // An earlier variant's clock jump must not carry over into this one.
    await sandbox.resetClock(node.name);
    // heal resets the node's proxy and ends a replication stall; without a proxy only the stall.
    if (node.proxy) await sandbox.heal(node.name);
    else await call(node.port, ['CLIENT', 'UNPAUSE'], 1000);
  }
}

/** Writes the scenario's seed where clients will look for it (every Redlock node, or the primary). */
async function seed(sandbox: SandboxHandle, scenario: Scenario): Promise<void> {
  if (scenario.seed.length === 0) return;
  const targets = await clientTargets(sandbox);
  const specs = targets.kind === 'single' ? [targets.spec] : targets.nodes.map((n) => n.spec);
  for (const spec of specs) {
    const conn = await connect(spec, { mode: 'one-shot', name: 'redlock-cli:scenario-seed' });
    try {
      for (const entry of scenario.seed) {
        if (entry.type === 'string') await conn.client.set(entry.key, entry.value);
        else await conn.client.hset(entry.key, entry.fields);
      }
    } finally {
      await conn.close();
    }
  }
}

/** How long a variant's start waits for a primary to answer its status probe. */
const PRIMARY_WAIT_MS = 5000;

/**
 * The sandbox's status once some node answers as primary. A status probe gives each node 300 ms
 * (what `sandbox status` can afford); on a loaded machine a revived or busy node can miss that,
 * and one missed probe is no reason to call the sandbox broken. Asked again, bounded in time.
 */
async function statusWithPrimary(sandbox: SandboxHandle): Promise<SandboxStatus> {
  const until = Date.now() + PRIMARY_WAIT_MS;
  for (;;) {
    const status = await sandbox.status();
    if (status.nodes.some((n) => n.role === 'primary') || Date.now() >= until) return status;
    await sleep(100);
  }
}
