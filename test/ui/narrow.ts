import { expect } from 'vitest';
import { displayWidth } from '../../src/core/text-layout.js';

// A live view's window narrowed under it, as ink-testing-library lets a test do it: the stdout's
// columns change and it emits `resize`, as a terminal's does. Every frame written after that must
// fit: a line wider than the terminal is wrapped by the terminal, not by ink, and ink's next
// repaint then erases one row too few (debris on the screen).

interface TestStdout {
  readonly frames: string[];
  emit(event: string): void;
}

/** Resizes the view to `columns` and returns the frames written after it that show `pattern` (waits up to 3 s). */
export async function framesAtWidth(view: { readonly stdout: unknown }, columns: number, pattern: RegExp): Promise<string[]> {
  const stdout = view.stdout as TestStdout;
  Object.defineProperty(stdout, 'columns', { value: columns, configurable: true });
  const from = stdout.frames.length;
  stdout.emit('resize');
  const deadline = Date.now() + 3000;
  while (stdout.frames.slice(from).every((f) => !pattern.test(f)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  return stdout.frames.slice(from).filter((f) => pattern.test(f));
}

/** Every line of every frame fits in `columns`, and there is at least one frame. */
export function expectFits(frames: readonly string[], columns: number): void {
  expect(frames.length).toBeGreaterThan(0);
  for (const frame of frames) for (const line of frame.split('\n')) expect(displayWidth(line), `${columns}: ${line}`).toBeLessThanOrEqual(columns);
}
