import { describe, expect, it } from 'vitest';
import { planTopology } from '../../src/sandbox/plan.js';

const names = (t: Parameters<typeof planTopology>[0], opts = {}): string[] =>
  planTopology(t, opts).map((n) => `${n.name}:${n.role}${n.replicaOf ? `<${n.replicaOf}` : ''}`);

describe('planTopology', () => {
  it('names nodes n1.. and sentinels s1..; replicas say whom they follow', () => {
    expect(names('single')).toEqual(['n1:primary']);
    expect(names('replicated')).toEqual(['n1:primary', 'n2:replica<n1', 'n3:replica<n1']);
    expect(names('sentinel')).toEqual(['n1:primary', 'n2:replica<n1', 'n3:replica<n1', 's1:sentinel', 's2:sentinel', 's3:sentinel']);
    expect(names('redlock')).toHaveLength(5);
    expect(names('redlock', { nodes: 3 })).toEqual(['n1:primary', 'n2:primary', 'n3:primary']);
    expect(names('cluster')).toEqual(['n1:primary', 'n2:primary', 'n3:primary']);
    expect(names('cluster', { replicas: 1 })).toEqual(['n1:primary', 'n2:primary', 'n3:primary', 'n4:replica<n1', 'n5:replica<n2', 'n6:replica<n3']);
  });

  it('refuses counts out of range and options of another topology', () => {
    expect(() => planTopology('redlock', { nodes: 0 })).toThrow('--nodes must be a whole number from 1 to 15');
    expect(() => planTopology('redlock', { nodes: 16 })).toThrow(/from 1 to 15/);
    expect(() => planTopology('cluster', { replicas: 2 })).toThrow('--replicas must be a whole number from 0 to 1');
    expect(() => planTopology('single', { nodes: 3 })).toThrow('--nodes goes with --topology redlock');
    expect(() => planTopology('sentinel', { replicas: 1 })).toThrow('--replicas goes with --topology cluster');
  });
});
