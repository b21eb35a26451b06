import type { Finding } from '../../src/core/trace/checker.js';
import type { VariantRun } from '../../src/core/scenario/run.js';
import { parseEndpointUrl } from '../../src/core/endpoint.js';
import type { Scenario } from '../../src/scenario/model.js';
import { runScenario } from '../../src/scenario/run-scenario.js';
import type { SandboxHandle } from '../../src/sandbox/handle.js';
import { runTrace } from '../../src/trace/run.js';

/**
 * Runs one variant of a scenario on `sandbox` while a MONITOR trace follows its primary (the
 * Sentinel master across a failover), as `trace --record` would: the trace's findings, and the
 * runner's verdict. `record` writes the recording `trace --from` reads.
 */
export async function tracedVariant(scenario: Scenario, variant: string, sandbox: SandboxHandle, record?: string): Promise<{ run: VariantRun; findings: Finding[] }> {
  const sentinel = sandbox.urls.sentinel;
  const n1 = sandbox.nodes.find((n) => n.name === 'n1')!;
  const spec = parseEndpointUrl(sentinel ? `redis-sentinel://${sentinel.hosts.join(',')}#${sentinel.masterName}` : `redis://127.0.0.1:${n1.port}`);
  const abort = new AbortController();
  let started!: () => void;
  const ready = new Promise<void>((resolve) => (started = resolve));
  const done = runTrace({ spec, wants: () => true, signal: abort.signal, record, onStart: () => started(), onStatus: () => undefined });
  await Promise.race([ready, done]);
  try {
    const run = await runScenario(scenario, { sandbox, variants: [variant] });
    abort.abort();
    // The trace fences as it stops: every line the server ran before it is decoded.
    const { session } = await done;
    return { run: run.variants[0]!, findings: session.findings };
  } finally {
    abort.abort();
    await done.catch(() => undefined);
  }
}
