/** `fragbench report | export | runs`: look at recorded runs. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { formatVerification, verifyStoredRun } from '../report/verify';
import type { CellRecord, RunRecord } from '../core/run-record';
import { ResultsStore, writeFileAtomic } from '../services/results/results-store';
import { consistencyCsv, eventsCsv, hasConsistency, runJson, samplesCsv } from '../report/export';
import { writeReport } from '../report/write-report';

const say = (line: string) => console.log(line);

const EXPORT_FORMATS = ['csv', 'json'] as const;
type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A run id in the results directory, or the path of a run's directory. */
function locateRun(run: string): { store: ResultsStore; runId: string } {
  const dir = path.resolve(run);
  if (/[\\/]/.test(run) && existsSync(path.join(dir, 'run.json'))) {
    return { store: new ResultsStore(path.dirname(dir)), runId: path.basename(dir) };
  }
  return { store: new ResultsStore(), runId: run };
}

/** A column-aligned text table. */
function columns(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `name.csv` -> `name-<what>.csv`, beside it. */
function fileBeside(samplesFile: string, what: string): string {
  const ext = path.extname(samplesFile);
  return `${samplesFile.slice(0, samplesFile.length - ext.length)}-${what}${ext || '.csv'}`;
}

/** [file, content] pairs; `target` is the --out file, or a path prefix in the run directory. */
function exportFiles(format: ExportFormat, target: string, explicit: boolean, run: RunRecord, cells: CellRecord[]): [string, string][] {
  if (format === 'json') return [[path.resolve(explicit ? target : `${target}.json`), runJson(run, cells)]];
  const samplesFile = path.resolve(explicit ? target : `${target}-samples.csv`);
  const beside = (what: string) => (explicit ? fileBeside(samplesFile, what) : path.resolve(`${target}-${what}.csv`));
  return [
    [samplesFile, samplesCsv(run, cells)],
    [beside('events'), eventsCsv(run, cells)],
    ...(hasConsistency(cells) ? [[beside('consistency'), consistencyCsv(run, cells)] as [string, string]] : []),
  ];
}

export function registerReportCommands(program: Command): void {
  program
    .command('report')
    .argument('<run>', 'a run id (see `fragbench runs`) or the path of a run directory')
    .option('--no-png', 'skip the PNG file per figure (writing them needs Chromium)')
    .description('write the run’s self-contained HTML report, results/<run>/report/index.html, and print its path')
    .action(async (run: string, options: { png: boolean }) => {
      const { store, runId } = locateRun(run);
      const written = await writeReport(store, runId, { png: options.png ? 'auto' : false });
      if (options.png && written.pngSkipped) console.error(`fragbench: no PNG files written: ${written.pngSkipped}`);
      say(written.reportPath);
    });

  program
    .command('export')
    .argument('<run>', 'a run id or the path of a run directory')
    .addOption(
      new Option('--format <format>', 'csv (per-second samples, plus an events file beside it) or json (everything recorded)')
        .choices(EXPORT_FORMATS)
        .makeOptionMandatory(),
    )
    .option('--out <file>', 'where to write; default: in the run directory')
    .description('export a run’s samples and events as CSV, or the whole record as JSON; prints the files written')
    .action(async (run: string, options: { format: ExportFormat; out?: string }) => {
      const { store, runId } = locateRun(run);
      const record = await store.readRun(runId);
      const cells = await store.readCells(record);
      const outputs = exportFiles(options.format, options.out ?? path.join(store.runDir(runId), runId), options.out !== undefined, record, cells);
      for (const [file, content] of outputs) {
        await writeFileAtomic(file, content);
        say(file);
      }
    });

  program
    .command('results')
    .description('stored results')
    .command('verify')
    .argument('<run>', 'a run id or the path of a run directory')
    .description('check a stored run for gaps, duplicate seconds, bad values and corrupt lines; exits 1 if it finds one')
    .action(async (run: string) => {
      const { store, runId } = locateRun(run);
      const verification = await verifyStoredRun(store, runId);
      say(formatVerification(verification));
      if (verification.problems.length > 0) process.exitCode = 1;
    });

  program
    .command('runs')
    .description('list the recorded runs, newest first')
    .action(async () => {
      const store = new ResultsStore();
      const runs = await store.listRuns();
      if (runs.length === 0) {
        say(`no runs under ${store.root}`);
        return;
      }
      const header = ['RUN', 'SCENARIO', 'STATUS', 'STARTED (UTC)', 'CELLS', 'LOSS SEED'];
      const rows = runs.map((r) => [
        r.runId,
        r.scenario,
        r.status,
        new Date(r.startedAt).toISOString().slice(0, 19).replace('T', ' '),
        String(r.cellIds.length),
        r.lossSeed === undefined ? '-' : String(r.lossSeed),
      ]);
      say(columns([header, ...rows]));
    });
}
