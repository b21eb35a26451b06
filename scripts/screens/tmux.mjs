// A private tmux server for capturing real screens: its own socket (-L), no user config, a clean
// environment (no CI, which makes ink print only its last frame; a UTF-8 locale so glyphs survive),
// and a record of every process its panes start, so each one can be stopped by pid at the end.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** True when a `tmux` binary answers `-V`. */
export function hasTmux() {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Direct children of a pid, read from /proc (empty once it has exited). */
function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** A pid and all its descendants, parents first. */
export function processTree(pid) {
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...childrenOf(out[i]));
  return out;
}

/** The kernel's start time of a pid (field 22 of /proc/<pid>/stat), to tell a reused pid apart. */
function startTime(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts nothing until the first session: returns helpers bound to one private socket.
 * `env` is the whole environment of the tmux server, hence of every pane.
 */
export function privateTmux(socket, env) {
  const pids = new Map(); // pid -> start time, so a pid reused by someone else is never signalled
  const tmux = (...args) => execFileSync('tmux', ['-u', '-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
  let started = false;

  /** Remembers the pane's whole process tree now (a pane's children appear after it starts). */
  const track = (panePid) => {
    for (const pid of processTree(panePid)) if (!pids.has(pid)) pids.set(pid, startTime(pid));
  };

  return {
    /** Opens a detached session running `command` under sh, at a fixed size. */
    session(name, command, { width, height, env: extra = {} }) {
      const vars = Object.entries(extra).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
      tmux('new-session', '-d', '-s', name, '-x', String(width), '-y', String(height), ...vars, command);
      started = true;
      const panePid = Number(tmux('display-message', '-p', '-t', name, '#{pane_pid}').trim());
      track(panePid);
      const screen = () => tmux('capture-pane', '-p', '-t', name);
      return {
        panePid,
        screen,
        track: () => track(panePid),
        /** Ends the session and SIGKILLs what its pane started (the next screen gets the machine to itself). */
        async kill() {
          track(panePid);
          const tree = processTree(panePid).filter((pid) => pids.has(pid) && startTime(pid) === pids.get(pid));
          try {
            tmux('kill-session', '-t', name);
          } catch {
            // the session had already ended
          }
          await sleep(100); // its SIGHUP is enough for most, as in stop()
          for (const pid of tree) if (alive(pid) && startTime(pid) === pids.get(pid)) process.kill(pid, 'SIGKILL');
        },
        /** The processes the pane's shell is running now (the command it started). */
        children: () => childrenOf(panePid),
        /** Polls the pane until `check(screen)` holds; throws with the last screen after `ms`. */
        async until(check, what, ms = 15_000) {
          const deadline = Date.now() + ms;
          for (;;) {
            const s = screen();
            track(panePid);
            if (check(s)) return s;
            if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen was:\n${s}`);
            await sleep(50);
          }
        },
        /** Types a line and presses Enter, as a person would. */
        line(text) {
          tmux('send-keys', '-t', name, '-l', text);
          tmux('send-keys', '-t', name, 'Enter');
        },
        keys: (...keys) => void tmux('send-keys', '-t', name, ...keys),
      };
    },
    /** Kills the tmux server, then SIGKILLs every process a pane started that is still alive. */
    async stop() {
      for (const pid of [...pids.keys()]) if (startTime(pid) === pids.get(pid)) track(pid);
      if (started) {
        try {
          tmux('kill-server');
        } catch {
          // every session had already ended
        }
      }
      await sleep(100); // SIGHUP from kill-server is enough for most; give them a moment
      for (const [pid, since] of pids) if (alive(pid) && startTime(pid) === since) process.kill(pid, 'SIGKILL');
    },
  };
}
