import { describe, expect, it } from 'vitest';
import { capabilitiesFromCommandInfo, chooseDeleteStrategy } from '../../src/redis/compare-and-delete.js';

// The entry COMMAND INFO returns for a known command (abridged): an array; unknown commands are nil.
const KNOWN = ['delex', -2, ['write', 'fast'], 1, 1, 1];

describe('compare-and-delete strategy', () => {
  it.each([
    [{ delex: false, delifeq: false }, 'lua'], // Redis <= 8.2, Valkey <= 8 (Debian's 7.0 here)
    [{ delex: true, delifeq: false }, 'delex'], // Redis 8.4+
    [{ delex: false, delifeq: true }, 'delifeq'], // Valkey 9.0 / 9.1
    [{ delex: true, delifeq: true }, 'delex'], // Valkey 9.2+ has both
  ] as const)('%o -> %s', (caps, strategy) => {
    expect(chooseDeleteStrategy(caps)).toBe(strategy);
  });

  it('reads COMMAND INFO DELEX DELIFEQ: arrays are known commands, nil is unknown', () => {
    expect(capabilitiesFromCommandInfo([null, null])).toEqual({ delex: false, delifeq: false });
    expect(capabilitiesFromCommandInfo([KNOWN, null])).toEqual({ delex: true, delifeq: false });
    expect(capabilitiesFromCommandInfo([null, KNOWN])).toEqual({ delex: false, delifeq: true });
    expect(capabilitiesFromCommandInfo('ERR unknown')).toEqual({ delex: false, delifeq: false });
  });
});
