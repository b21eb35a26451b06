// `who` as text: a block per lock (holders, waiters, subscribers, liveness), then the blocked-by
// chains, then what the sample was and what could not be learned. Escaping happens where lines are
// printed (print/note), as for every command.

import { formatDuration } from '../duration.js';
import { shortOwner } from '../trace/events.js';
import type { ChainParty, LearnedVia, Liveness, WhoChain, WhoConnection, WhoHolder, WhoLock, WhoParty, WhoReport } from './model.js';

const HOW: Readonly<Record<LearnedVia, string>> = {
  monitor: 'seen writing its owner id in the sample',
  'trace-memory': 'remembered from an earlier trace',
  'owner-label': 'the label the library stores',
};

/** `worker-a (127.0.0.1:5001)`, or the address alone. */
export function connectionLabel(c: WhoConnection): string {
  return c.name !== undefined ? `${c.name} (${c.addr})` : c.addr;
}

/** What CLIENT LIST says of a connection: library, age, idle; or that it is gone. */
function connectionFacts(c: WhoConnection): string {
  if (c.gone === true) return 'connection gone';
  const parts: string[] = [];
  if (c.libName !== undefined) parts.push(c.libVer !== undefined ? `${c.libName} ${c.libVer}` : c.libName);
  if (c.ageMs !== undefined) parts.push(`age ${formatDuration(c.ageMs)}`);
  if (c.idleMs !== undefined) parts.push(`idle ${formatDuration(c.idleMs)}`);
  return parts.join(', ');
}

function partyLine(role: string, p: WhoParty): string {
  const where = p.position !== undefined ? `#${p.position} ` : '';
  const owner = `owner ${shortOwner(p.owner)}`;
  if (p.connection) {
    const facts = connectionFacts(p.connection);
    return `  ${role} ${where}${connectionLabel(p.connection)}${facts ? `  ${facts}` : ''}  ${owner}, ${HOW[p.via!]}`;
  }
  if (p.label !== undefined) return `  ${role} ${where}${p.label}  ${owner}, ${HOW['owner-label']} (no connection named)`;
  return `  ${role} ${where}not resolved  ${owner}: not seen in the sample, not in the owner directory`;
}

const frees = (ms: number | null): string => (ms === null ? 'it never frees: the key has no TTL' : `frees in ${formatDuration(ms)}`);

/** The liveness sentence, or undefined when there is nothing to say beyond the connection line. */
export function livenessText(l: Liveness): string | undefined {
  switch (l.state) {
    case 'gone':
      return `holder's connection is gone; ${frees(l.freesInMs)}`;
    case 'zombie-renewer':
      return `holder's connection is gone but the lease keeps being renewed by ${connectionLabel(l.renewer)} (a zombie renewer; ${frees(l.freesInMs)} if it stops)`;
    case 'unknown':
      return 'alive or not: unknown (CLIENT LIST was refused)';
    default:
      return undefined;
  }
}

function holderLines(h: WhoHolder): string[] {
  const lines = [partyLine('holder', h)];
  const live = livenessText(h.liveness);
  if (live) lines.push(`    ${live}`);
  const others = h.renewers.filter((r) => r.addr !== h.connection?.addr);
  if (others.length > 0 && h.liveness.state !== 'zombie-renewer') lines.push(`    renewed by ${others.map(connectionLabel).join(', ')}`);
  return lines;
}

function subscriberLines(l: WhoLock): string[] {
  const { count, connections, exact } = l.subscribers;
  if (count === 0) return [];
  const head = `  subscribers ${count} on its channels`;
  if (connections.length === 0) return [head];
  const which = exact ? '' : ' (one of; CLIENT LIST does not name channels)';
  return [`${head}: ${connections.map(connectionLabel).join(', ')}${which}`];
}

function lockLines(l: WhoLock): string[] {
  const lease = l.ttlMs >= 0 ? `lease ${formatDuration(l.ttlMs)}` : 'no TTL';
  const head = `${l.key}  ${l.kind} (${l.library})  ${lease}`;
  const holders = l.holders.length > 0 ? l.holders.flatMap(holderLines) : ['  free'];
  return [head, ...holders, ...l.waiters.map((w) => partyLine('waiter', w)), ...subscriberLines(l)];
}

const partyText = (p: ChainParty): string => (p.connection ? connectionLabel(p.connection) : `owner ${shortOwner(p.owner)}`);

/** One chain, drawn as a staircase: each step is held by the next party. */
export function chainLines(c: WhoChain): string[] {
  const [first, ...rest] = c.links;
  if (!first) return [];
  const lines = [`  ${partyText(c.waiter)} waits for ${first.lock}`];
  const steps = [first, ...rest];
  steps.forEach((step, i) => {
    const next = steps[i + 1];
    const indent = '  '.repeat(i + 1);
    const back = c.cycle && !next ? ': back to the start, a deadlock' : '';
    lines.push(`${indent}└─ held by ${partyText(step.holder)}${next ? `, who waits for ${next.lock}` : back}`);
  });
  return lines;
}

/** The whole report as lines for stdout. */
export function formatWho(r: WhoReport): string[] {
  const lines: string[] = [];
  for (const l of r.locks) {
    if (lines.length > 0) lines.push('');
    lines.push(...lockLines(l));
  }
  if (r.locks.length === 0) lines.push('no locks found');
  for (const c of r.chains) lines.push('', c.cycle ? 'deadlock:' : 'blocked-by chain:', ...chainLines(c));
  return lines;
}

/** The sample and the limits, for stderr. */
export function whoNotes(r: WhoReport): string[] {
  const sample = r.sample.ms > 0 ? [`sampled MONITOR for ${formatDuration(r.sample.ms)}${r.sample.endedEarly ? ' (ended early: every holder and waiter was resolved)' : ''}`] : [];
  return [...sample, ...r.limits];
}
