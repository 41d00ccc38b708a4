/**
 * What a run is found by in Temporal's list of workflows: the values of its search attributes
 * (FragbenchScenario, FragbenchDatabase, FragbenchTopology, FragbenchVerdict, defined in
 * workflows/definitions.ts) and its memo. The scenario workflow sets them once the run is
 * planned, and the verdict when it ends. Pure (the workflows bundle it).
 */
import type { RunRecord } from './run-record';
import type { RunPlan } from './scenario';
import { worstVerdict, type CellVerdict } from './verdict';

export interface RunLabels {
  scenario: string;
  /** Every database the run's cells run, in order. */
  databases: string[];
  /** Every fleet they run on: a local topology's name, a Pulumi stack's, an inventory file's. */
  topologies: string[];
  /** The scenario's own description, for the memo (the UI shows it beside the run). */
  description?: string;
}

const fileName = (file: string) => file.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '');

export function runLabels(plan: RunPlan, record: RunRecord): RunLabels {
  const topologies = plan.cells.map(({ fleet }) =>
    fleet.kind === 'pulumi' ? fleet.stack : fleet.kind === 'file' ? fileName(fleet.path) : record.inventory.name,
  );
  const description = record.settings.description;
  return {
    scenario: plan.scenario,
    databases: [...new Set(plan.cells.map((c) => c.database))],
    topologies: [...new Set(topologies)],
    ...(typeof description === 'string' && description.trim() !== '' ? { description: description.trim() } : {}),
  };
}

/** How a run ended, as its verdict label reads it. */
export type RunEnd = 'completed' | 'aborted' | 'failed' | 'cancelled';

/**
 * The run's verdict for the list: for a completed run, the worst verdict of its judged cells
 * (`ok`, `network-off`, `client-bound`, `host-bound`), `unjudged` when none was judged; otherwise
 * how it ended (`aborted`, `failed`, `cancelled`).
 */
export function runVerdictLabel(end: RunEnd, verdicts: (CellVerdict | undefined)[]): string {
  if (end !== 'completed') return end;
  const judged = verdicts.filter((v): v is CellVerdict => v !== undefined);
  return judged.length === 0 ? 'unjudged' : worstVerdict(judged.map((v) => v.verdict));
}
