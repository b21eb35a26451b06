// Scenario files in words, for `scenario show` and the REPL's `step`: one line per step.

import { formatDuration } from '../core/duration.js';
import { safeText } from '../core/terminal-text.js';
import { seconds } from '../core/scenario/timeline-events.js';
import { isClientStep, isFaultStep, isWaitStep, type ClientStep, type Scenario, type Step, type WaitFor } from './model.js';

const opt = (cond: unknown, text: string): string => (cond ? text : '');

function clientText(s: ClientStep): string {
  switch (s.do) {
    case 'acquire':
      return [
        `acquire${opt(s.kind, ` (${s.kind})`)}`,
        s.leaseMs !== undefined ? `lease ${formatDuration(s.leaseMs)}` : `watchdog lease ${formatDuration(s.watchdogLeaseMs)}${opt(s.maxRenewals !== undefined, `, at most ${s.maxRenewals} renewals`)}`,
        opt(s.waitMs > 0, `wait up to ${formatDuration(s.waitMs)}`),
        opt(s.mode === 'setnx-then-expire', `SETNX then EXPIRE ${formatDuration(s.gapMs ?? 0)} later`),
        opt(s.mode === 'resend-on-timeout', `resend if no reply in ${formatDuration(s.timeoutMs ?? 0)}`),
        opt(s.waitReplicas !== undefined, `WAIT for ${s.waitReplicas} replica(s)`),
        opt(!s.checkValidity, 'trusting the lock without checking its validity'),
      ].filter((p) => p !== '').join(', ');
    case 'release':
      return s.mode === 'safe' ? 'release (owner checked)' : s.mode === 'naive-del' ? 'release with a plain DEL' : `release by GET, compare, ${formatDuration(s.gapMs ?? 0)}, DEL`;
    case 'renew':
      return (
        (s.mode === 'safe' ? `renew (compare-and-extend)${opt(s.leaseMs, ` to ${formatDuration(s.leaseMs ?? 0)}`)}` : 'renew by SET again, whoever holds it') +
        opt(s.background, ', from a refresh timer beside the work')
      );
    case 'enter':
      return 'enter the critical section';
    case 'leave':
      return 'leave the critical section';
    case 'write':
      return `write ${s.value} to the register`;
    case 'incr':
      return `increment the counter (read, ${formatDuration(s.gapMs)}, write)`;
    case 'pause':
      return `pause for ${formatDuration(s.forMs)} (GC pause: no steps, no renewals)`;
    case 'crash':
      return 'crash (never releases)';
    case 'partition':
      return `cut off from ${s.nodes ? s.nodes.join(', ') : 'Redis'}`;
    case 'heal':
      return 'reconnected';
  }
}

/** One line: `0.35 s  B  acquire, lease 2.0 s, wait up to 1.0 s   [fixed]`; keys and values in it escaped. */
export function stepText(step: Step): { readonly at: string; readonly lane: string; readonly text: string } {
  const parts = stepParts(step);
  return { ...parts, text: safeText(parts.text) };
}

function stepParts(step: Step): { readonly at: string; readonly lane: string; readonly text: string } {
  const only = step.only ? `   [${step.only.join(', ')}]` : '';
  if (isClientStep(step)) return { at: seconds(step.at), lane: step.client, text: clientText(step) + only };
  if (isFaultStep(step)) {
    const parts = [step.fault, step.node, step.value, step.forMs !== undefined ? `for ${formatDuration(step.forMs)}` : undefined, step.amnesia ? '(amnesia)' : undefined];
    return { at: seconds(step.at), lane: step.node ?? 'sandbox', text: parts.filter((p) => p !== undefined).join(' ') + only };
  }
  if (isWaitStep(step)) return { at: seconds(step.at), lane: 'scenario', text: waitText(step.wait) + only };
  return { at: seconds(step.at), lane: 'note', text: step.note + only };
}

function waitText(w: WaitFor): string {
  const limit = w.timeoutMs !== undefined ? `, at most ${formatDuration(w.timeoutMs)}` : '';
  if (w.until === 'reply') return `wait until ${w.client}'s steps so far have returned${limit}`;
  return `wait until ${w.key ?? 'the lock'} is gone on ${w.node ?? 'the server'}${limit}`;
}

/** What the scenario sets up: topology, lock, clients, resource. */
export function setupText(s: Scenario): string[] {
  const sandbox = [s.sandbox.topology, s.sandbox.nodes !== undefined ? `${s.sandbox.nodes} nodes` : '', s.sandbox.fakeClock ? 'fake clocks' : '']
    .filter((p) => p !== '')
    .join(', ');
  const clients = s.clients.map((c) => [c.name, c.kind, c.reach ? `reaches ${c.reach.join(',')}` : undefined, c.stopOnLost ? 'stops on lost lock' : undefined].filter(Boolean).join(' '));
  return [
    `sandbox   ${sandbox}`,
    `lock      ${s.lock.kind} ${safeText(s.lock.key)}`,
    `clients   ${clients.join('; ')}`,
    `resource  fencing ${s.resource.fencing}`,
  ];
}
