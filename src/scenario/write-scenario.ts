// A scenario file written by a program (`trace --scenario`): its data as YAML in the shipped
// files' style (one flow mapping per step), read back through the loader before it is written,
// so a file we write is always one `scenario run` accepts.

import { writeFile } from 'node:fs/promises';
import { Document, isMap, isSeq, type Node } from 'yaml';
import type { ScenarioSpec } from '../core/trace/incident-scenario.js';
import { parseScenario } from './load.js';
import type { Scenario } from './model.js';

/** The YAML text of a scenario's data: block mappings at the top, each step and short mapping on one line. */
export function scenarioYaml(spec: ScenarioSpec): string {
  const doc = new Document(spec);
  const root = doc.contents;
  if (isMap(root)) {
    for (const pair of root.items) {
      const value = pair.value as Node | null;
      if (isSeq(value)) for (const item of value.items) if (isMap(item)) item.flow = true;
      if (isMap(value) && value.items.every((p) => !isMap(p.value) || p.value.items.length <= 2)) {
        // sandbox / lock stay on one line; variants keep a block per variant with flow values.
        if (value.items.some((p) => isMap(p.value))) for (const p of value.items) (p.value as { flow?: boolean }).flow = false;
        else value.flow = true;
      }
    }
  }
  return doc.toString({ lineWidth: 0, flowCollectionPadding: true });
}

/** Writes the scenario to `file` once it has passed the loader; returns it as `scenario run` will read it. */
export async function writeScenarioFile(spec: ScenarioSpec, file: string): Promise<Scenario> {
  const text = scenarioYaml(spec);
  let scenario: Scenario;
  try {
    scenario = parseScenario(text, file);
  } catch (err) {
    // A file the loader refuses is our bug, not the user's input: exit 1, and nothing is written.
    throw new Error(`the scenario written for ${file} does not load: ${(err as Error).message}`);
  }
  await writeFile(file, text, { flag: 'w' });
  return scenario;
}
