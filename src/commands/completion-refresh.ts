// The background refresh of one lock-key cache file, started detached by a Tab
// (completion-cached-keys.ts) as `node dist/commands/completion-refresh.js`, with the request in
// REFRESH_ENV (the environment, not argv: the line's connection options may hold a password, and
// argv is what every user of the machine sees in ps). It ends by itself within its bound.

import { REFRESH_BOUND_MS, REFRESH_ENV } from '../core/completion-cache.js';
import { refreshKeyCache, type RefreshRequest } from './completion-keys.js';

async function main(): Promise<void> {
  // A backstop past the lookup's own bound: a refresh never outlives a few seconds.
  setTimeout(() => process.exit(0), REFRESH_BOUND_MS + 2000);
  const request = JSON.parse(process.env[REFRESH_ENV] ?? 'null') as RefreshRequest | null;
  if (request) {
    const env = { ...process.env, [REFRESH_ENV]: undefined };
    await refreshKeyCache({ stdout: process.stdout, stderr: process.stderr, env }, request);
  }
  process.exit(0);
}

void main().catch(() => process.exit(1));
