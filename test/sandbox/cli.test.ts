import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processesUnder } from '../../src/sandbox/procfs.js';
import { readState } from '../../src/sandbox/state.js';
import { startRedis } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { isAlive, probe } from '../helpers/sandbox.js';

const env = tempStateEnv();
const root = join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes');
const cli = (...argv: string[]) => runCli(['sandbox', ...argv], env);
const seen = new Set<number>();
const pidsOf = (name: string): number[] => {
  const pids = readState(join(root, name))?.nodes.map((n) => n.pid) ?? [];
  pids.forEach((p) => seen.add(p));
  return pids;
};

afterAll(async () => {
  await cli('down', '--all');
  expect([...seen].filter(isAlive)).toEqual([]);
  expect(processesUnder(env.XDG_STATE_HOME!)).toEqual([]);
});

describe('redlock-cli sandbox (through run)', () => {
  it('up --json prints the nodes and URLs; the servers keep running after it returns', async () => {
    const up = await cli('up', '--json');
    expect(up.code).toBe(0);
    const out = JSON.parse(up.stdout) as { name: string; topology: string; nodes: { name: string; port: number; pid: number }[]; urls: { primary: string } };
    expect(out).toMatchObject({ name: 'default', topology: 'single', urls: { primary: `redis://127.0.0.1:${out.nodes[0]!.port}` } });
    expect(up.stderr).toBe('');
    expect(isAlive(out.nodes[0]!.pid)).toBe(true);
    expect(pidsOf('default')).toEqual([out.nodes[0]!.pid]);
    expect(await probe(out.nodes[0]!.port)).toBe('PONG');
  });

  it('up refuses a name that is already up', async () => {
    const again = await cli('up');
    expect(again).toMatchObject({ code: 2 });
    expect(again.stderr).toBe('redlock-cli: sandbox "default" is already up (single): stop it with: redlock-cli sandbox down --name default, or pick another --name\n');
  });

  it('status shows every sandbox as a table; with a name as JSON', async () => {
    const text = await cli('status');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^sandbox "default": single, up .*\n {2}NODE +ROLE +STATE +ADDRESS +PID +KEYS +REPLICATION +MEMORY\n {2}n1 +primary +running +127\.0\.0\.1:\d+ +\d+ +0 +- +\d+\.\d MB\n$/);
    const json = await cli('status', '--name', 'default', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ name: 'default', nodes: [{ name: 'n1', role: 'primary', state: 'running' }] });
  });

  it('kill, restart --amnesia, pause --for and resume report what they did and the state after', async () => {
    const port = readState(join(root, 'default'))!.nodes[0]!.port;
    const kill = await cli('kill', 'n1');
    expect(kill.code).toBe(0);
    expect(kill.stdout).toMatch(/^killed n1 \(SIGKILL to pid \d+\): 127\.0\.0\.1:\d+ now refuses connections\nsandbox "default"/);
    expect(kill.stdout).toMatch(/n1 +- +killed/);
    expect(await probe(port)).toBe('refused');
    const restart = await cli('restart', 'n1', '--amnesia');
    pidsOf('default');
    expect(restart.stdout).toMatch(/^restarted n1 on 127\.0\.0\.1:\d+ in \d+ ms \(pid \d+\); 0 keys: there is no persistence/);
    expect(await probe(port)).toBe('PONG');
    const pause = await cli('pause', 'primary', '--for', '200ms');
    expect(pause.stdout).toMatch(/^paused n1 \(SIGSTOP to pid \d+\) for 200 ms: .*\nresumed n1 \(SIGCONT to pid \d+\): .* answers again\n/);
    expect(await probe(port)).toBe('PONG');
    const resume = await cli('resume', 'n1', '--json');
    expect(JSON.parse(resume.stdout)).toMatchObject({ actions: [{ verb: 'resume', node: 'n1', message: 'n1 was not paused; nothing to do' }], status: { name: 'default' } });
  });

  it('a paused node stays paused across invocations until resume', async () => {
    const port = readState(join(root, 'default'))!.nodes[0]!.port;
    expect((await cli('pause', 'n1')).stdout).toMatch(/until: redlock-cli sandbox resume n1 --name default:/);
    expect(await probe(port)).toBe('timeout');
    expect((await cli('status')).stdout).toMatch(/n1 +- +paused/);
    await cli('resume', 'n1');
    expect(await probe(port)).toBe('PONG');
  });

  it('refuses nodes and sandboxes that do not exist, and verbs without a name when several are up', async () => {
    expect(await cli('kill', 'n9')).toMatchObject({ code: 4, stderr: 'redlock-cli: sandbox "default" has no node "n9" (its nodes: n1)\n' });
    expect(await cli('kill', 'n1', '--name', 'nope')).toMatchObject({ code: 4, stderr: expect.stringMatching(/no sandbox "nope" is up: start it with: redlock-cli sandbox up --name nope/) });
    expect((await cli('up', '--name', '../etc')).code).toBe(2);
    expect((await cli('pause', 'n1', '--for', '3')).stderr).toMatch(/invalid --for duration "3"/);
  });

  it('fault verbs refuse a server given by URL, Sentinel, Cluster or target, and leave it alone', async () => {
    const outsider = await startRedis();
    try {
      for (const verb of ['kill', 'pause', 'restart', 'stall-replication', 'clock']) {
        for (const target of [['-u', outsider.url], ['--url', outsider.url], ['--sentinel', `127.0.0.1:${outsider.port}`], ['--cluster', `127.0.0.1:${outsider.port}`], ['--target', 'prod']]) {
          const out = await cli(verb, 'n1', ...target);
          const flag = target[0] === '-u' ? 'url' : target[0]!.slice(2);
          expect(out, `${verb} ${target.join(' ')}`).toEqual({
            code: 2,
            stdout: '',
            stderr: `redlock-cli: sandbox ${verb} acts only on a sandbox this tool started, not on --${flag}: start one with redlock-cli sandbox up and point your application at it\n`,
          });
        }
      }
      expect(isAlive(outsider.pid)).toBe(true);
      expect(await probe(outsider.port)).toBe('PONG');
      expect((await cli('kill', '--help')).stdout).not.toMatch(/--url|--sentinel|--cluster|--target/);
    } finally {
      await outsider.stop();
    }
  });

  it('failover on a replicated sandbox, named, with JSON', async () => {
    const up = await cli('up', '--topology', 'replicated', '--name', 'rep');
    expect(up.code).toBe(0);
    pidsOf('rep');
    expect(up.stdout).toMatch(/^sandbox "rep" is up: replicated, 3 processes, formed in/);
    expect(up.stderr).toMatch(/stop it: redlock-cli sandbox down --name rep\n$/);
    const failover = await cli('failover', '--name', 'rep', '--json');
    expect(failover.code).toBe(0);
    const report = JSON.parse(failover.stdout) as { actions: { from: string; to: string }[]; status: { nodes: { name: string; role: string; state: string }[] } };
    expect(report.actions[0]!.from).toBe('n1');
    expect(report.status.nodes.find((n) => n.name === report.actions[0]!.to)!.role).toBe('primary');
    expect(report.status.nodes[0]).toMatchObject({ name: 'n1', state: 'killed' });
  });

  it('every hint names its sandbox: the resume printed by pause on "rep" resumes rep, with default up too', async () => {
    const pause = await cli('pause', 'primary', '--name', 'rep');
    const hint = /until: redlock-cli (sandbox resume n\d --name rep):/.exec(pause.stdout);
    expect(hint, pause.stdout).not.toBeNull();
    const resume = await cli(...hint![1]!.split(' ').slice(1));
    expect(resume).toMatchObject({ code: 0, stdout: expect.stringMatching(/^resumed n\d .*\nsandbox "rep"/) });
    expect((await cli('status', '--name', 'rep')).stdout).not.toMatch(/paused/);
  });

  it('down stops exactly the recorded processes, by pid, and removes the directory', async () => {
    const pids = [...pidsOf('default'), ...pidsOf('rep')];
    const down = await cli('down', '--all');
    expect(down.code).toBe(0);
    expect(down.stdout).toMatch(/stopped sandbox "default": 1 process\(es\) killed; removed .*default\n/);
    expect(down.stdout).toMatch(/stopped sandbox "rep": 2 process\(es\) killed, 1 already gone; removed/);
    expect(pids.filter(isAlive)).toEqual([]);
    expect(existsSync(join(root, 'default'))).toBe(false);
    // Idempotent teardown: nothing left to stop is a note and exit 0, named or not, --all or not.
    expect(await cli('down')).toMatchObject({ code: 0, stdout: '', stderr: 'nothing to stop: no sandbox is up\n' });
    expect(await cli('down', 'rep')).toMatchObject({ code: 0, stdout: '', stderr: 'nothing to stop: no sandbox "rep" is up\n' });
    expect(await cli('down', '--all')).toMatchObject({ code: 0, stdout: '', stderr: 'nothing to stop: no sandbox is up\n' });
    expect(await cli('status')).toMatchObject({ code: 0, stdout: '', stderr: 'no sandbox is up: start one with: redlock-cli sandbox up\n' });
  });

  it('with several sandboxes up and none named, the error names the flag the command takes', async () => {
    for (const name of ['one', 'two']) expect((await cli('up', '--name', name)).code).toBe(0);
    pidsOf('one');
    pidsOf('two');
    const ls = await runCli(['ls', '--sandbox'], env);
    expect(ls).toMatchObject({ code: 2, stderr: 'redlock-cli: 2 sandboxes are up (one, two): name one with --sandbox <name>\n' });
    const kill = await cli('kill', 'n1');
    expect(kill).toMatchObject({ code: 2, stderr: 'redlock-cli: 2 sandboxes are up (one, two): name one with --name <name>\n' });
    expect((await cli('down', '--all')).code).toBe(0);
  });

  it('a missing redis-server is one line naming the package', async () => {
    const missing = await runCli(['sandbox', 'up'], { ...env, PATH: '/nonexistent' });
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toBe('redlock-cli: redis-server not found on PATH: install it with `sudo apt-get install redis-server` (Debian/Ubuntu) or pass --redis-server PATH\n');
    expect((await cli('up', '--redis-server', '/bin/nope')).stderr).toMatch(/--redis-server \/bin\/nope: not an executable file; install it with/);
  });

  it('Ctrl-C in the middle of up stops what was started and exits 130', async () => {
    const controller = new AbortController();
    const running = runCli(['sandbox', 'up', '--topology', 'sentinel', '--name', 'halfway'], env, controller.signal);
    const dir = join(root, 'halfway');
    let pids: number[] = [];
    for (let i = 0; i < 500 && pids.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 5));
      pids = pidsOf('halfway');
    }
    expect(pids.length).toBeGreaterThanOrEqual(2);
    controller.abort();
    const result = await running;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/interrupted: stopped the \d process\(es\) already started/);
    expect(pids.filter(isAlive)).toEqual([]);
    expect(processesUnder(dir)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  });

  it('--help explains the process model', async () => {
    const help = await cli('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/never daemonised/);
    expect(help.stdout).toMatch(/\/proc\/<pid>\/cmdline/);
    for (const verb of ['up', 'status', 'down', 'kill', 'restart', 'pause', 'resume', 'failover']) expect(help.stdout).toContain(`  ${verb}`);
  });
});
