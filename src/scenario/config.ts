import { UsageError } from '../core/errors.js';
import type { SandboxHandle } from '../sandbox/handle.js';
import { call, RespError } from '../sandbox/resp.js';
import type { Scenario, Variant } from './model.js';
import { redisNodes } from './targets.js';

// A sandbox serves every variant of a run in turn, so a setting one variant changes must be put
// back for the next: the value each node had before the first change is remembered per sandbox.
const originals = new WeakMap<SandboxHandle, Map<string, Map<string, string>>>();

/** The settings a variant runs with: its own, else the scenario's. */
export function desiredConfig(scenario: Scenario, variant: Variant): Record<string, string> {
  return { ...scenario.sandbox.config, ...variant.sandbox?.config };
}

/**
 * CONFIG SET on every redis node (or only `only`): the variant's settings, and for settings an
 * earlier variant changed but this one does not name, the node's original value.
 */
export async function applyConfig(sandbox: SandboxHandle, desired: Readonly<Record<string, string>>, only?: string): Promise<void> {
  const bySandbox = originals.get(sandbox) ?? new Map<string, Map<string, string>>();
  originals.set(sandbox, bySandbox);
  for (const node of redisNodes(sandbox)) {
    if (only !== undefined && node.name !== only) continue;
    const saved = bySandbox.get(node.name) ?? new Map<string, string>();
    bySandbox.set(node.name, saved);
    for (const key of new Set([...Object.keys(desired), ...saved.keys()])) {
      if (!saved.has(key)) saved.set(key, await configGet(node.port, key));
      const value = desired[key] ?? saved.get(key)!;
      try {
        await call(node.port, ['CONFIG', 'SET', key, value], 1000);
      } catch (err) {
        if (err instanceof RespError) throw new UsageError(`sandbox setting ${key} ${value} refused by ${node.name}: ${err.message}`);
        throw err;
      }
    }
  }
}

async function configGet(port: number, key: string): Promise<string> {
  const reply = await call(port, ['CONFIG', 'GET', key], 1000);
  if (!Array.isArray(reply) || typeof reply[1] !== 'string') throw new UsageError(`unknown redis-server setting "${key}" in the scenario's sandbox config`);
  return reply[1];
}
