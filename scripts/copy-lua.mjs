// tsc does not copy non-TS files: the Lua scripts must sit next to the compiled registry, and the
// trace's digest catalogue (imported as JSON) next to the module that reads it.
import { cpSync, rmSync } from 'node:fs';

rmSync(new URL('../dist/redis/lua', import.meta.url), { recursive: true, force: true });
cpSync(new URL('../src/redis/lua', import.meta.url), new URL('../dist/redis/lua', import.meta.url), {
  recursive: true,
});

cpSync(new URL('../src/core/trace/digests.json', import.meta.url), new URL('../dist/core/trace/digests.json', import.meta.url));
