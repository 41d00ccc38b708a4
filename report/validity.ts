/**
 * The validity verdict as a reader meets it: one line per cell that is not `ok` (with the figure
 * behind it), or one line saying every cell was checked and found ok. A result that is flagged
 * stays in every table and figure; this only says how far to trust it.
 */
import type { CellRecord } from '../core/run-record';
import type { CellVerdict } from '../core/verdict';

/** `host-bound: host CPU ≥ 90 % in 34 % of seconds (threshold 10 %)`, or `ok`, or `not checked`. */
export function verdictText(verdict: CellVerdict | undefined): string {
  if (!verdict) return 'not checked';
  if (verdict.verdict === 'ok') return verdict.unchecked.length > 0 ? `ok (${verdict.unchecked.join(', ')} not checked)` : 'ok';
  return `${verdict.verdict}: ${verdict.reasons.map((r) => r.text).join('; ')}`;
}

export interface ValidityBanner {
  /** True when some cell is flagged. */
  flagged: boolean;
  lines: string[];
}

export function validityBanner(cells: CellRecord[], label: (cell: CellRecord) => string): ValidityBanner | undefined {
  const judged = cells.filter((c) => c.summary.verdict);
  if (judged.length === 0) return undefined;
  const flagged = judged.filter((c) => c.summary.verdict!.verdict !== 'ok');
  if (flagged.length === 0) {
    return {
      flagged: false,
      lines: [
        `Validity: every cell is ok: the host, the client and the network stayed out of the way (${judged.length} of ${cells.length} cells judged).`,
      ],
    };
  }
  return {
    flagged: true,
    lines: [
      `Validity: ${flagged.length} of ${cells.length} cells measured the tool or the host as well as the database; their figures are shown, flagged.`,
      ...flagged.map((c) => `${label(c)}: ${verdictText(c.summary.verdict)}`),
    ],
  };
}
