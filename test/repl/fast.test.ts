// The REPL's quick start: which command lines it takes (everything else goes through commander),
// and the stand-in controller that queues lines until the session has loaded.
import { describe, expect, it } from 'vitest';
import { bootController } from '../../src/repl/boot.js';
import { fastReplPlan } from '../../src/repl/fast.js';
import type { ReplController } from '../../src/ui/ReplApp.js';

describe('fastReplPlan', () => {
  const env = { REDIS_URL: 'redis://127.0.0.1:7001' };

  it.each([
    [[], { url: 'redis://127.0.0.1:7001', clients: undefined, intervalMs: 1000 }],
    [['repl'], { url: 'redis://127.0.0.1:7001', clients: undefined, intervalMs: 1000 }],
    [['repl', '-u', 'redis://h:1', '--clients', 'web,worker', '--interval', '250ms'], { url: 'redis://h:1', clients: ['web', 'worker'], intervalMs: 250 }],
    [['repl', '--url=redis://h:2', '--interval=10ms', '--no-color'], { url: 'redis://h:2', clients: undefined, intervalMs: 100 }],
  ])('%j starts quickly', (args, plan) => {
    expect(fastReplPlan(args, env)).toEqual(plan);
  });

  it.each([
    [['acquire', 'k']],
    [['repl', '--help']],
    [['repl', '--sandbox']],
    [['repl', '--target', 'prod']],
    [['repl', '--sentinel', 'h:1', '--master-name', 'm']],
    [['repl', '--url']],
    [['repl', '--url', 'ftp://nope']],
    [['repl', '--interval', 'soon']],
    [['repl', '--clients', '1bad']],
  ])('%j goes through commander (which owns its help and errors)', (args) => {
    expect(fastReplPlan(args, env)).toBeUndefined();
  });
});

describe('bootController', () => {
  it('shows the prompt at once, queues lines until the session is ready, then forwards everything', () => {
    const boot = bootController({ client: 'A', clients: ['A', 'B'], target: '127.0.0.1:7001', intervalMs: 1000, history: ['old'] });
    expect(boot.getSnapshot()).toMatchObject({ prompt: 'A@127.0.0.1:7001> ', queued: 0, ended: false });
    expect(boot.history).toEqual(['old']);
    let changes = 0;
    boot.subscribe(() => (changes += 1));
    boot.submit('acquire k');
    boot.eof();
    expect(boot.getSnapshot().queued).toBe(2);
    expect(boot.interrupt()).toBe(false);
    expect(boot.complete('ac')).toEqual([]);

    const submitted: string[] = [];
    let listener = (): void => {};
    const snapshot = { ...boot.getSnapshot(), prompt: 'real> ' };
    const session: ReplController = {
      subscribe: (l) => ((listener = l), () => undefined),
      getSnapshot: () => snapshot,
      submit: (line) => void submitted.push(line),
      interrupt: () => true,
      eof: () => void submitted.push('<eof>'),
      complete: () => ['acquire'],
      history: ['old', 'new'],
    };
    boot.ready(session);
    expect(submitted).toEqual(['acquire k', 'exit']);
    expect(boot.getSnapshot().prompt).toBe('real> ');
    expect(boot.complete('ac')).toEqual(['acquire']);
    expect(boot.history).toEqual(['old', 'new']);
    const before = changes;
    listener();
    expect(changes).toBe(before + 1);
  });
});
