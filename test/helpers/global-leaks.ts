import { readdirSync, readFileSync } from 'node:fs';

// "After the test suite, no redis-server started by the tool is left running" (issue 4), checked
// for the whole run rather than file by file: every process a test starts (test servers, sandbox
// nodes, sentinels, fault proxies, race workers, tmux) inherits this run's marker in its
// environment, so at the end /proc names whatever outlived its test. Leftovers are killed, then
// reported as a failure: a test that leaks must be fixed, not cleaned up after.

const MARKER = 'REDLOCK_CLI_TEST_RUN';

interface Leftover {
  readonly pid: number;
  readonly command: string;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Live processes (zombies aside) whose environment carries `marker`, other than this one. */
function marked(marker: string): Leftover[] {
  const found: Leftover[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    if (!read(`/proc/${pid}/environ`)?.split('\0').includes(marker)) continue;
    const stat = read(`/proc/${pid}/stat`);
    const state = stat?.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === undefined || state === 'Z' || state === 'X') continue;
    found.push({ pid, command: (read(`/proc/${pid}/cmdline`) ?? '').replaceAll('\0', ' ').trim() });
  }
  return found;
}

export function setup(): () => Promise<void> {
  const value = `${process.pid}-${Date.now()}`;
  process.env[MARKER] = value;
  const marker = `${MARKER}=${value}`;
  return async () => {
    // Workers and the servers their exit handlers kill may take a moment to go.
    let left = marked(marker);
    for (let i = 0; i < 20 && left.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = marked(marker);
    }
    if (left.length === 0) return;
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    // vitest reports an error thrown here but still exits 0, so set the exit code too.
    process.exitCode = 1;
    throw new Error(`the tests left ${left.length} process(es) running (now killed):\n${left.map((p) => `  ${p.pid} ${p.command}`).join('\n')}`);
  };
}
