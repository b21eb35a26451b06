import { describe, expect, it } from 'vitest';
import type { HoldEvent } from '../../src/core/hold-events.js';
import { rememberWhileHeld } from '../../src/hold/memory.js';
import { loadOwners } from '../../src/state/owners.js';
import { tempStateEnv } from '../helpers/run-cli.js';

const lock = { target: 'redis://127.0.0.1:1', key: 'child-key', kind: 'reentrant', owner: 'b0c1:1' } as const;
const acquired: HoldEvent = { type: 'acquired', at: Date.now(), mode: 'watchdog', leaseMs: 30_000, renewEveryMs: 10_000, count: 1 };

describe('the owner memory while a hold runs', () => {
  it("shows 'acquired' once the owner is remembered, and the held command's output only after it", async () => {
    const env = tempStateEnv();
    const seen: string[] = [];
    const out = rememberWhileHeld(
      {
        emit: (e) => seen.push(`${e.type}${e.type === 'acquired' ? ` (remembered: ${loadOwners(env).length})` : ''}`),
        childOutput: (stream, text) => seen.push(`${stream}: ${text}`),
        close: async () => {},
      },
      { env, warn: (line) => seen.push(`warning: ${line}`) },
      lock,
    );
    // The command starts right after the acquire and prints at once, before the remember is written.
    out.emit(acquired);
    out.childOutput('stdout', 'hello from the child\n');
    await out.close();
    expect(seen).toEqual(['acquired (remembered: 1)', 'stdout: hello from the child\n']);
  });
});
