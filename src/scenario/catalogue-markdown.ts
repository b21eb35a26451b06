import type { Scenario, Variant } from './model.js';

// The scenario catalogue of the scenarios guide, drawn from the scenario files themselves so the
// table cannot drift from what `scenario run` does: scripts/docs-catalogue.mjs writes it, a test
// compares it.

/** The page that holds the catalogue, from the repository's root. */
export const CATALOGUE_DOC = 'docs/guide/scenarios.md';
export const CATALOGUE_START = '<!-- catalogue:start (npm run docs:catalogue) -->';
export const CATALOGUE_END = '<!-- catalogue:end -->';

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

const verdict = (v: Variant): string => `${v.name}: ${v.expect.length === 0 ? 'safe' : v.expect.join(', ')}`;

/** The variant that shows the fix: `fixed` when there is one, else the last safe variant. */
function fixOf(s: Scenario): Variant | undefined {
  return s.variants.find((v) => v.name === 'fixed') ?? [...s.variants].reverse().find((v) => v.expect.length === 0);
}

/** One markdown table row per scenario, in the order given, between the catalogue markers. */
export function catalogueMarkdown(scenarios: readonly Scenario[]): string {
  const rows = scenarios.map((s) => {
    const topology = s.sandbox.topology === 'redlock' ? `redlock (${s.sandbox.nodes ?? 5} nodes)` : s.sandbox.topology;
    return `| \`${s.name}\` | ${topology} | ${s.lock.kind} | ${cell(s.summary)} | ${s.variants.map(verdict).join('<br>')} | ${cell(fixOf(s)?.description ?? '')} |`;
  });
  return [
    CATALOGUE_START,
    '| scenario | topology | lock | what goes wrong | variants: what the checker must find | the fix |',
    '|---|---|---|---|---|---|',
    ...rows,
    CATALOGUE_END,
  ].join('\n');
}

/** `readme` with its catalogue block replaced by `table`; undefined when the markers are missing. */
export function replaceCatalogue(readme: string, table: string): string | undefined {
  const start = readme.indexOf(CATALOGUE_START);
  const end = readme.indexOf(CATALOGUE_END);
  if (start < 0 || end < start) return undefined;
  return readme.slice(0, start) + table + readme.slice(end + CATALOGUE_END.length);
}
