/** `fragbench report | export | results verify`: look at recorded runs. */
import path from 'node:path';
import { Option, type Command } from 'commander';
import { formatVerification, verifyStoredRun } from '../report/verify';
import type { CellRecord, RunRecord } from '../core/run-record';
import { writeFileAtomic } from '../services/results/results-store';
import { consistencyCsv, eventsCsv, hasConsistency, runJson, samplesCsv } from '../report/export';
import { writeReport } from '../report/write-report';
import { locateRun } from './run-location';

const say = (line: string) => console.log(line);

const EXPORT_FORMATS = ['csv', 'json'] as const;
type ExportFormat = (typeof EXPORT_FORMATS)[number];

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
}
