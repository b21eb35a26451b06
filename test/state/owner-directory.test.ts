import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RememberedWriter } from '../../src/core/who/model.js';
import { loadOwnerDirectory, MAX_ENTRIES, mergeWriters, ownerDirectoryFile, rememberWriters } from '../../src/state/owner-directory.js';
import { tempStateEnv } from '../helpers/run-cli.js';

const writer = (i: number, at = 1_000_000 + i): RememberedWriter => ({ target: 't', key: `k${i % 3000}`, owner: `o${i % 3000}`, addr: `127.0.0.1:${10_000 + (i % 50_000)}`, at });

describe('the owner directory', () => {
  it('stays bounded: one entry per owner (the newest), at most MAX_ENTRIES, none older than a day', () => {
    const now = 2_000_000_000_000;
    const many = Array.from({ length: 5000 }, (_, i) => writer(i, now - 5000 + i));
    const kept = mergeWriters([{ ...writer(1), at: now - 25 * 3_600_000 }], many, now);
    expect(kept).toHaveLength(MAX_ENTRIES);
    expect(new Set(kept.map((e) => e.owner)).size).toBe(MAX_ENTRIES);
    expect(kept.at(-1)).toEqual(many.at(-1));
    expect(kept.every((e) => e.at >= now - 5000)).toBe(true);
  });

  it('is written by rememberWriters and read back; a damaged file reads as empty', async () => {
    const env = tempStateEnv();
    const warnings: string[] = [];
    await rememberWriters(env, [writer(1, Date.now())], (l) => warnings.push(l));
    expect(warnings).toEqual([]);
    expect(loadOwnerDirectory(env).map((e) => e.owner)).toEqual(['o1']);
    expect(existsSync(ownerDirectoryFile(env)) && readFileSync(ownerDirectoryFile(env), 'utf8')).toContain('"addr":"127.0.0.1:10001"');
    writeFileSync(ownerDirectoryFile(env), '[{"target":');
    expect(loadOwnerDirectory(env)).toEqual([]);
  });
});
