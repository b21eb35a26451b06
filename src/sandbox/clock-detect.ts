import { accessSync, constants, existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/** How a clock fault is applied to a node; every report names it. */
export type ClockMethod = 'faketime' | 'ttl-rewrite';

export type ClockSupport =
  | { readonly method: 'faketime'; readonly library: string; readonly compiler: string }
  | { readonly method: 'ttl-rewrite'; readonly reason: string };

export interface DetectOptions {
  /** Search path for the `faketime` wrapper and C compilers (default: $PATH). */
  readonly path?: string;
  /** Explicit libfaketime.so.1 (default: $REDLOCK_LIBFAKETIME, then the usual install locations). */
  readonly library?: string;
  /** Explicit C compiler (default: $CC, then cc, gcc, clang). */
  readonly compiler?: string;
}

// Debian/Ubuntu put the library under the multiarch directory, Fedora under lib64, source
// builds under /usr/local: the wrapper's own prefix comes first so a private install wins.
const MULTIARCH: Partial<Record<string, string>> = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' };

function findOnPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function findCompiler(wanted: string | undefined, path: string): string | undefined {
  if (wanted) return wanted.includes('/') ? (existsSync(wanted) ? wanted : undefined) : findOnPath(wanted, path);
  return ['cc', 'gcc', 'clang'].map((c) => findOnPath(c, path)).find((c) => c !== undefined);
}

function libraryCandidates(path: string): string[] {
  const prefixes = ['/usr/local', '/usr'];
  const wrapper = findOnPath('faketime', path);
  if (wrapper) prefixes.unshift(dirname(dirname(realpathSync(wrapper))));
  const arch = MULTIARCH[process.arch];
  const libDirs = prefixes.flatMap((p) => [...(arch ? [join(p, 'lib', arch)] : []), join(p, 'lib64'), join(p, 'lib')]);
  return [...new Set(libDirs)].flatMap((d) => [join(d, 'faketime', 'libfaketime.so.1'), join(d, 'libfaketime.so.1')]);
}

/** Finds libfaketime and a C compiler; without both (or off Linux), clock faults use the TTL-rewrite emulation. */
export function detectClockSupport(options: DetectOptions = {}): ClockSupport {
  if (process.platform !== 'linux') {
    return { method: 'ttl-rewrite', reason: `libfaketime via LD_PRELOAD needs Linux (this is ${process.platform})` };
  }
  const path = options.path ?? process.env.PATH ?? '';
  const explicit = options.library ?? process.env.REDLOCK_LIBFAKETIME;
  const library = explicit ? (existsSync(explicit) ? explicit : undefined) : libraryCandidates(path).find((f) => existsSync(f));
  if (!library) {
    return {
      method: 'ttl-rewrite',
      reason: explicit ? `libfaketime not found at ${explicit}` : 'libfaketime not found (apt-get install faketime)',
    };
  }
  const compiler = findCompiler(options.compiler ?? process.env.CC, path);
  if (!compiler) {
    return {
      method: 'ttl-rewrite',
      reason: 'no C compiler to build the malloc shim libfaketime needs with jemalloc (apt-get install gcc)',
    };
  }
  return { method: 'faketime', library, compiler };
}
