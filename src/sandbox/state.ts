import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../core/errors.js';
import { stateDir } from '../state/paths.js';
import { TOPOLOGIES, type NodeRecord, type SandboxState } from './types.js';

export const DEFAULT_SANDBOX = 'default';
const STATE_FILE = 'sandbox.json';
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

/** Where sandboxes live: `<stateDir>/sandboxes` unless the caller chose a directory. */
export function sandboxesRoot(dir: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  return dir ?? join(stateDir(env), 'sandboxes');
}

export function checkName(name: string): string {
  if (!NAME.test(name)) throw new UsageError(`invalid sandbox name "${name}": use up to 32 letters, digits, - and _`);
  return name;
}

export const statePath = (sandboxDir: string): string => join(sandboxDir, STATE_FILE);
export const nodeDir = (sandboxDir: string, node: string): string => join(sandboxDir, node);
/** The config file is also the marker that identifies the node's process (it is in its cmdline). */
export const confPath = (sandboxDir: string, node: string): string => join(sandboxDir, node, 'redis.conf');
export const logPath = (sandboxDir: string, node: string): string => join(sandboxDir, node, 'redis.log');

/** Written through a temp file and rename, so a reader never sees half a file. */
export function writeState(state: SandboxState): void {
  mkdirSync(state.dir, { recursive: true });
  const tmp = `${statePath(state.dir)}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(tmp, statePath(state.dir));
}

function isState(value: unknown): value is SandboxState {
  const v = value as Partial<SandboxState> | null;
  return (
    typeof v === 'object' && v !== null && v.version === 1 && typeof v.name === 'string' && typeof v.dir === 'string' &&
    TOPOLOGIES.includes(v.topology as never) && Array.isArray(v.nodes) &&
    v.nodes.every((n: Partial<NodeRecord>) => typeof n.name === 'string' && Number.isInteger(n.pid) && Number.isInteger(n.port))
  );
}

/** The state of one sandbox directory, or undefined when it has none (or an unreadable one). */
export function readState(sandboxDir: string): SandboxState | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(statePath(sandboxDir), 'utf8'));
    return isState(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Names of the sandbox directories under `root`, sorted. */
export function sandboxNames(root: string): string[] {
  try {
    return readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() && NAME.test(e.name))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** A copy of the state with one node's record changed, and the fields named in `drop` removed from it. */
export function withNode(state: SandboxState, name: string, change: Partial<NodeRecord>, drop: readonly (keyof NodeRecord)[] = []): SandboxState {
  const changed = (n: NodeRecord): NodeRecord => {
    const record: Record<string, unknown> = { ...n, ...change };
    for (const key of drop) delete record[key];
    return record as unknown as NodeRecord;
  };
  return { ...state, nodes: state.nodes.map((n) => (n.name === name ? changed(n) : n)) };
}
