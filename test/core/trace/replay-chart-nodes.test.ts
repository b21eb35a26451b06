import { describe, expect, it } from 'vitest';
import { replayChartLines } from '../../../src/core/trace/replay-chart.js';
import { TraceSession } from '../../../src/core/trace/session.js';
import { EVENTS, NODES } from './redlock-trace-fixture.js';

// The text chart `trace --from` draws of a recording of Redlock nodes: besides the client lanes, a
// lane per node (labels cut from the left, so the port shows) with its holders, the blind period
// of the node that restarted, the clock step's mark, and the overlap's window.

describe('the trace --from chart of a multi-node recording', () => {
  it('draws a lane per node: who held the lock there, blind, the clock step', () => {
    const session = new TraceSession({ redlockNodes: NODES });
    session.push(EVENTS);
    const lines = replayChartLines(session, 80);
    const lane = (port: string) => lines.filter((l) => l.startsWith('…') && l.slice(0, 9).includes(port));
    for (const node of NODES) expect(lane(node.slice(-6))).toHaveLength(1);
    // n2: A (1), the blind period (-), then B (2); n3: the clock step (*), then B.
    expect(lane(NODES[1]!.slice(-6))[0]).toMatch(/^\S+ +1+-+ +2+$/);
    expect(lane(NODES[2]!.slice(-6))[0]).toMatch(/^\S+ +\*.* 2+$/);
    expect(lines.some((l) => l.startsWith('legend:') && l.includes('- trace blind'))).toBe(true);
  });
});
