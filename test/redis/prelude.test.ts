import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { preludeFor } from '../../src/redis/prelude.js';
import { SCRIPTS, scriptSha, scriptSource, type ScriptName } from '../../src/redis/scripts.js';
import { useLockServer } from '../helpers/fixture.js';

// Each script carries only the prelude helpers it calls (Redis runs the whole text per call), and
// every script still loads: a helper left out would be a nil global the first time it runs.

const fx = useLockServer();
const prelude = readFileSync('src/redis/lua/_prelude.lua', 'utf8');
const defined = (text: string): string[] => [...text.matchAll(/^local (?:function )?(\w+)/gm)].map((m) => m[1]!);

describe('preludeFor', () => {
  it('gives a script the helpers it calls, and the helpers and constants those use', () => {
    expect(defined(preludeFor(prelude, "local err = redlock_wrong_type(KEYS[1], 'string')"))).toEqual([
      'redlock_wrong_type',
    ]);
    const fair = defined(
      preludeFor(prelude, 'local e = redlock_fair_guard(KEYS[2], KEYS[3]) or redlock_bad_now(ARGV[3])'),
    );
    expect(fair).toEqual(
      expect.arrayContaining([
        'redlock_wrong_type',
        'redlock_fair_guard',
        'REDLOCK_MAX_EPOCH_MS',
        'redlock_bad_int',
        'redlock_bad_now',
      ]),
    );
    expect(fair).not.toContain('redlock_publish');
    expect(preludeFor(prelude, 'return 1')).toBe('');
  });

  it('leaves every script with each redlock_ helper it calls defined, and Redis loads them all', async () => {
    for (const name of Object.keys(SCRIPTS) as ScriptName[]) {
      const source = scriptSource(name);
      const called = [...source.matchAll(/\b(redlock_\w+|REDLOCK_\w+)\b/g)]
        .map((m) => m[1]!)
        .filter((n) => !/^REDLOCK_(WRONG|BADARG)/.test(n));
      const missing = called.filter((n) => !defined(source).includes(n));
      expect({ name, missing }).toEqual({ name, missing: [] });
      expect(await fx.raw.script('LOAD', source)).toBe(scriptSha(name));
    }
  });

  it('covers every file in src/redis/lua', () => {
    const files = readdirSync('src/redis/lua').filter((f) => f.endsWith('.lua') && f !== '_prelude.lua');
    expect(files.sort()).toEqual(
      Object.values(SCRIPTS)
        .map((s) => s.file)
        .sort(),
    );
  });
});
