import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pairedRuns } from '../../bench/startup.js';
import { BIN, ensureBuilt } from '../helpers/build.js';

// A Tab answers from the command tree the build saved, without loading every command module (all
// of them cost a Tab about 0.8 s of CPU at load 20). CPU time of the process, paired runs against
// the whole-program path on the same machine at the same moment, so load falls on both alike; the
// figures for docs/performance.md come from `npx tsx bench/completion.ts`.

describe('a Tab from the saved command tree', () => {
  it('the saved tree is the live program\'s, and a Tab costs well under half of loading every command', async () => {
    ensureBuilt();
    const live = execFileSync(process.execPath, [BIN, '__complete', '--tree'], { encoding: 'utf8' });
    expect(JSON.parse(readFileSync(new URL('../../dist/completion-tree.json', import.meta.url), 'utf8'))).toEqual(JSON.parse(live));
    const pair = await pairedRuns(3, [BIN, '__complete', '--shell', 'zsh', '--files-line', '--', 'inspect', '--ki'], [BIN, '__complete', '--tree']);
    expect(pair.cpuRatio).toBeLessThan(0.5);
  }, 120_000);
});
