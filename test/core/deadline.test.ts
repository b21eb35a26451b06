import { describe, expect, it } from 'vitest';
import { beforeDeadline } from '../../src/core/deadline.js';

// The one race against a deadline (connecting, closing, leaving a wait): the work's own outcome
// when it comes first, else what `late` says, and no timer left behind either way.

const never = new Promise<never>(() => undefined);

describe('beforeDeadline', () => {
  it('settles as the work does when it comes first, a rejection included', async () => {
    await expect(beforeDeadline(Promise.resolve('done'), 60_000, () => 'late')).resolves.toBe('done');
    await expect(beforeDeadline(Promise.reject(new Error('refused')), 60_000, () => 'late')).rejects.toThrow('refused');
  });

  it("once the deadline passes: late's value, or its error", async () => {
    await expect(beforeDeadline(never, 10, () => 'late')).resolves.toBe('late');
    await expect(
      beforeDeadline(never, 10, () => {
        throw new Error('did not answer');
      }),
    ).rejects.toThrow('did not answer');
  });

  it('without a deadline it waits for the work however long it takes', async () => {
    const work = new Promise((resolve) => setTimeout(() => resolve('slow'), 30));
    await expect(beforeDeadline(work, undefined, () => 'late')).resolves.toBe('slow');
  });

  it('leaves no timer behind when the work comes first (a 60 s timer would keep node alive)', async () => {
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    await beforeDeadline(Promise.resolve(1), 60_000, () => 0);
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBe(before);
  });
});
