// `--html FILE` of trace, scenario run and race: the page is written once the run is over (a
// live trace's too, after Ctrl-C). The path is checked before anything runs, so a typo does not
// cost a whole race; the page is built in core/report from the same lanes the terminal draws.

import { stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import type { Report } from '../core/report/model.js';
import { note, type RunContext } from './context.js';

/** Adds `--html <file>` with the same words on every command that has it. */
export function addHtmlOption(cmd: Command): Command {
  return cmd.option('--html <file>', 'also write one self-contained HTML page: lanes over time, findings, every event, the summary (docs/guide/incident-report.md)');
}

/** Fails with a usage error (nothing has run yet) when the page could not be written there. */
export async function checkReportPath(file: string): Promise<void> {
  const dir = dirname(resolve(file));
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`--html ${file}: no directory ${dir}: create it or give another path`);
  const existing = await stat(file).catch(() => undefined);
  if (existing?.isDirectory()) throw new UsageError(`--html ${file} is a directory: give a file name, e.g. ${file.replace(/\/*$/, '')}/report.html`);
}

/** Renders and writes the page, and says where on stderr. */
export async function writeReport(ctx: RunContext, file: string, report: Report): Promise<void> {
  const { reportHtml } = await import('../core/report/html.js');
  const page = reportHtml(report);
  try {
    await writeFile(file, page);
  } catch (err) {
    throw new UsageError(`--html: cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  note(ctx, `report: wrote ${file} (${Math.ceil(Buffer.byteLength(page) / 1024)} KB)`);
}
