// Preloaded into every process bench/startup.ts times (`node --import`): at exit it appends the
// process's own CPU time (user and system, all threads, microseconds) to $BENCH_CPU_FILE, so the
// figure is the child's alone, not the harness's or a shell's.
import { appendFileSync } from 'node:fs';

const file = process.env.BENCH_CPU_FILE;
if (file)
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    appendFileSync(file, `${user + system}\n`);
  });
