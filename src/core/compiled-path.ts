import { fileURLToPath } from 'node:url';

/**
 * A compiled script started as its own process (race worker, hold guard): `sibling` next to the
 * calling module in dist/, or `fromSource` (relative to it) when the caller runs from src/ under
 * the tests, where only dist/ has JavaScript to start.
 */
export function compiledPath(callerUrl: string, sibling: string, fromSource: string): string {
  return fileURLToPath(new URL(callerUrl.endsWith('.ts') ? fromSource : sibling, callerUrl));
}
