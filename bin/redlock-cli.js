#!/usr/bin/env node
// Tiny launcher: settle colour before chalk/ink load, wire signals, hand over to dist/main.js.
import module from 'node:module';
import { safeLine, safeText } from '../dist/core/terminal-text.js';

// Node 22.1 and later keep the compiled code of the modules below on disk between runs (the
// directory node picks, under the system's temp dir); node 20 has no such cache and skips this.
module.enableCompileCache?.();
// chalk 5 ignores NO_COLOR, so map it (and --no-color) to FORCE_COLOR=0 first.
if (process.env.NO_COLOR !== undefined || process.argv.includes('--no-color')) process.env.FORCE_COLOR = '0';

// `redlock-cli ... | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    // The terminal itself is gone (its window closed): nothing can be shown any more, but the
    // release that SIGHUP asked for must still run.
    if (err.code === 'EIO') return;
    throw err;
  });
}

const args = process.argv.slice(2);
// `repl` (or nothing) on a terminal: the REPL mounts its screen before the rest of the CLI loads,
// so its first prompt does not wait for every command module. fast.js is small and decides
// whether the arguments are plain enough; otherwise everything goes through main.js as usual.
const terminal = process.stdin.isTTY === true && process.stdout.isTTY === true;
const fast = terminal && (args.length === 0 || args[0] === 'repl') ? await import('../dist/repl/fast.js') : undefined;
const plan = fast?.fastReplPlan(args, process.env);

const controller = new AbortController();
let interrupts = 0;
const exitCodeFor = (signal) => (signal === 'SIGINT' ? 130 : signal === 'SIGHUP' ? 129 : signal === 'crash' ? 1 : 143);
// The first signal asks every command to stop and release what it holds; whatever it still waits
// on after this long (a paused server, a wedged release), the process ends anyway. A command that
// needs longer to stop in order (hold --kill-grace) says so through ctx.interruptGrace.
let graceMs = 10_000;
const onSignal = (signal) => {
  interrupts += 1;
  // A second Ctrl-C means "now": stop without waiting for releases to finish.
  if (interrupts > 1) process.exit(exitCodeFor(signal));
  // unref: a command that finishes in time ends the process as usual, without waiting for this.
  setTimeout(() => {
    sayCrash();
    process.stderr.write(`redlock-cli: still waiting ${graceMs / 1000} s after ${signal}: stopped without finishing\n`);
    process.exit(exitCodeFor(signal));
  }, graceMs).unref();
  controller.abort(signal);
};
const interruptGrace = { extend: (ms) => void (graceMs = Math.max(graceMs, ms)) };
// SIGHUP: the terminal or tmux window closed under a hold; release like on SIGTERM.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
for (const signal of SIGNALS) process.on(signal, onSignal);

// An error nothing caught (in a library's listener, a timer) is a crash, but what the command
// started must not outlive it: it stops like on SIGTERM (the same abort and grace, so the REPL
// releases its holds and stops its sandboxes), and the exit code is 1. Its one line is written
// once the command has stopped, below whatever a live view drew last.
let crashed = false;
let crashLine;
const sayCrash = () => {
  if (crashLine !== undefined) process.stderr.write(crashLine);
  crashLine = undefined;
};
const onCrash = (err) => {
  process.exitCode = 1;
  if (crashed) return; // a second one while stopping: the grace timer still ends the process
  crashed = true;
  const debug = args.includes('--debug');
  const message = err instanceof Error ? (debug ? (err.stack ?? err.message) : err.message) : String(err);
  crashLine = `redlock-cli: unexpected error: ${debug ? safeLine(message) : `${safeText(message)} (run with --debug for details)`}\n`;
  // Also when the event loop runs dry before the command returns.
  process.once('exit', sayCrash);
  onSignal('crash');
};
process.on('uncaughtException', onCrash);
process.on('unhandledRejection', onCrash);

const ctx = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, signal: controller.signal, interruptGrace };
// A Tab: answered from the command tree the build saved, without loading every command module
// (undefined when there is none, or the line is not the scripts' `__complete --shell <sh> -- ...`).
const completion = args[0] === '__complete' ? await import('../dist/commands/completion-fast.js') : undefined;
let code = fast && plan ? await fast.runFastRepl(plan, ctx) : await completion?.completeFromSavedTree(args.slice(1), ctx);
if (code === undefined) {
  const { run } = await import('../dist/main.js');
  code = await run(args, ctx);
}
process.exitCode = crashed ? 1 : code;
sayCrash();
for (const signal of SIGNALS) process.removeListener(signal, onSignal);
// The command is over once run() returns: a socket still open behind it (a wedged sentinel's, a
// QUIT a paused server never answers) must not keep the process alive after its last line.
// What was written to stdout and stderr is flushed first.
await Promise.all([process.stdout, process.stderr].map((stream) => new Promise((resolve) => stream.write('', resolve))));
process.exit();
