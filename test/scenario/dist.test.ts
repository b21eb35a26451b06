// The compiled loader finds the catalogue too: dist/ sits beside scenarios/ at the package root,
// as it does in an installed package.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/build.js';

it('dist/scenario/load.js resolves scenarios/ at the package root and reads the same catalogue', async () => {
  ensureBuilt();
  const load = (await import(pathToFileURL(join(process.cwd(), 'dist/scenario/load.js')).href)) as typeof import('../../src/scenario/load.js');
  expect(load.scenariosDir()).toBe(`${join(process.cwd(), 'scenarios')}/`);
  const source = await import('../../src/scenario/load.js');
  expect((await load.listScenarios()).map((s) => s.name)).toEqual((await source.listScenarios()).map((s) => s.name));
}, 120_000);
