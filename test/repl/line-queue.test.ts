import { describe, expect, it } from 'vitest';
import { LineQueue } from '../../src/repl/line-queue.js';

/** A queue whose lines wait until the test lets each finish, so typing ahead can be shown. */
function queue() {
  const ran: string[] = [];
  const printed: string[] = [];
  // Prints and the start and end of each line, in the order they came.
  const trace: string[] = [];
  const release: (() => void)[] = [];
  const lines = new LineQueue({
    execute: (line) => {
      ran.push(line);
      if (line === 'boom') return Promise.reject(new Error('boom failed'));
      return new Promise<void>((resolve) => release.push(resolve));
    },
    print: (text) => (printed.push(text), trace.push(text)),
    lineStarted: () => trace.push('<line>'),
    lineDone: () => trace.push('</line>'),
    publish: () => undefined,
    ended: () => false,
  });
  const finishOne = async () => {
    release.shift()?.();
    await new Promise((r) => setImmediate(r));
  };
  return { lines, ran, printed, trace, finishOne };
}

describe('the prompt line queue', () => {
  it('runs lines one at a time in the order typed; an error is printed and the next line runs', async () => {
    const { lines, ran, printed, finishOne } = queue();
    lines.enqueue('first');
    lines.enqueue('boom');
    lines.enqueue('third');
    expect(ran).toEqual(['first']);
    expect(lines.queued).toBe(2);
    await finishOne();
    expect(ran).toEqual(['first', 'boom', 'third']);
    expect(printed).toEqual(['boom failed']);
  });

  it('tells when each line starts and when it is done, after its error', async () => {
    const { lines, trace, finishOne } = queue();
    lines.enqueue('first');
    lines.enqueue('boom');
    await finishOne();
    expect(trace).toEqual(['<line>', '</line>', '<line>', 'boom failed', '</line>']);
  });

  it('a question takes the next line as its answer, and Ctrl-C answers it with no', async () => {
    const { lines, ran, printed } = queue();
    const yes = lines.ask('release and leave? [y/N]');
    expect(lines.asking).toBe('release and leave? [y/N]');
    expect(lines.answer(' y ')).toBe(true);
    expect(await yes).toBe('y');
    const no = lines.ask('stop it? [y/N]');
    expect(lines.cancelQuestion()).toBe(true);
    expect(await no).toBe('');
    expect(printed).toEqual(['release and leave? [y/N]  y ', 'stop it? [y/N] ^C']);
    // Without a question, a line is not an answer and Ctrl-C has no question to cancel.
    expect(lines.answer('ls')).toBe(false);
    expect(lines.cancelQuestion()).toBe(false);
    expect(ran).toEqual([]);
  });

  it('drop forgets the lines typed ahead and says how many', () => {
    const { lines, ran } = queue();
    lines.enqueue('acquire k --wait 10s');
    lines.enqueue('ls');
    lines.enqueue('inspect k');
    expect(lines.drop()).toBe(2);
    expect(lines.queued).toBe(0);
    expect(ran).toEqual(['acquire k --wait 10s']);
  });
});
