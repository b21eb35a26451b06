// Finding scenario files: shipped ones by name, the user's by path, and what a missing one says.

import { mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NotFoundError, UsageError } from '../../src/core/errors.js';
import { isScenarioPath, listScenarios, loadScenario, resolveScenario, scenariosDir } from '../../src/scenario/load.js';
import { BASE, edit, useTempDir } from './fixtures.js';

const tmp = useTempDir();
const catalogue = (): string => join(tmp.dir(), 'catalogue');

describe('resolveScenario', () => {
  it('finds a shipped scenario by name, and any file by path', async () => {
    mkdirSync(catalogue(), { recursive: true });
    tmp.write('catalogue/lost-lock.yaml', BASE);
    tmp.write('catalogue/other-race.yml', edit('title: Lost lock', 'title: Other race'));
    const byName = await resolveScenario('lost-lock', catalogue());
    expect(byName).toMatchObject({ name: 'lost-lock', title: 'Lost lock', file: join(catalogue(), 'lost-lock.yaml') });
    expect((await resolveScenario('other-race', catalogue())).title).toBe('Other race');

    const path = tmp.write('mine.yaml', BASE);
    expect(await resolveScenario(path, catalogue())).toMatchObject({ name: 'mine', file: path });
    // Relative to the working directory, as a user types it.
    const rel = relative(process.cwd(), path);
    expect((await resolveScenario(rel, catalogue())).file).toBe(rel);
  });

  it('a path is anything with a / or a .yaml / .yml ending', () => {
    expect(isScenarioPath('./my-race.yaml')).toBe(true);
    expect(isScenarioPath('my-race.yaml')).toBe(true);
    expect(isScenarioPath('my-race.YML')).toBe(true);
    expect(isScenarioPath('dir/my-race')).toBe(true);
    expect(isScenarioPath('expired-lease-misdeletion')).toBe(false);
  });

  it('an unknown name is not found (exit 4), with the closest shipped name', async () => {
    mkdirSync(catalogue(), { recursive: true });
    tmp.write('catalogue/lost-lock.yaml', BASE);
    await expect(resolveScenario('lost-lok', catalogue())).rejects.toThrow(
      new NotFoundError('no shipped scenario named "lost-lok"; did you mean lost-lock? (redlock-cli scenario list shows them; a file path needs a / or .yaml)'),
    );
    await expect(resolveScenario('zzz', catalogue())).rejects.toMatchObject({
      exitCode: 4,
      message: 'no shipped scenario named "zzz" (redlock-cli scenario list shows them; a file path needs a / or .yaml)',
    });
    await expect(resolveScenario('', catalogue())).rejects.toBeInstanceOf(UsageError);
  });

  it('a missing file is not found (exit 4); a directory is a usage error', async () => {
    const missing = join(tmp.dir(), 'nope.yaml');
    await expect(resolveScenario(missing)).rejects.toThrow(new NotFoundError(`scenario file not found: ${missing}`));
    await expect(loadScenario(missing)).rejects.toMatchObject({ exitCode: 4 });
    await expect(loadScenario(tmp.dir())).rejects.toThrow(new UsageError(`${tmp.dir()} is a directory, not a scenario file`));
  });

  it('an invalid file read by path names that path in its error', async () => {
    const path = tmp.write('broken.yaml', edit('do: pause', 'do: paus'));
    await expect(loadScenario(path)).rejects.toThrow(new UsageError(`${path}:11:32: steps[1].do: unknown step "paus"; expected one of acquire, release, renew, enter, leave, write, incr, pause, crash, partition, heal`));
  });
});

describe('listScenarios', () => {
  it('reads every .yaml / .yml file, sorted by name, and nothing else', async () => {
    const dir = join(tmp.dir(), 'list');
    mkdirSync(dir, { recursive: true });
    tmp.write('list/b-race.yaml', BASE);
    tmp.write('list/a-race.yml', BASE);
    tmp.write('list/README.md', '# not a scenario');
    expect((await listScenarios(dir)).map((s) => s.name)).toEqual(['a-race', 'b-race']);
  });

  it('an empty or missing directory lists nothing', async () => {
    const dir = join(tmp.dir(), 'empty');
    mkdirSync(dir, { recursive: true });
    expect(await listScenarios(dir)).toEqual([]);
    expect(await listScenarios(join(tmp.dir(), 'absent'))).toEqual([]);
  });

  it('the shipped catalogue is the package root scenarios/ directory', () => {
    expect(scenariosDir()).toBe(`${join(process.cwd(), 'scenarios')}/`);
  });
});
