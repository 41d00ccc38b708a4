/**
 * Several clients in one cell (ramped clients record their own phases, e.g. `run:c2`): each
 * client's successful operations per second, stacked, so the reader sees how the load was
 * shared as clients joined and left. The throughput timeline shows only their sum.
 */
import type { CellRecord } from '../../core/run-record';
import { isRamped } from '../contents';
import { cellLabel } from '../matrix';
import { cellTimeline, measuredPhases, sampleSecond } from '../../core/cell-timeline';
import { BASE_CONFIG, figureId, formatNumber, type Figure } from './figure';

/** `run:c2` -> `c2`; the phase's own client, which has no suffix, is named after the phase. */
function clientName(phase: string): string {
  const colon = phase.indexOf(':');
  return colon < 0 ? `${phase} (first client)` : phase.slice(colon + 1);
}

/** None unless at least two clients recorded samples in the cell. */
export function clientShares(cell: CellRecord, axes: string[]): Figure[] {
  const phases = measuredPhases(cell.phases).filter((p) => p.samples.length > 0);
  if (phases.length < 2 || !isRamped(cell)) return [];
  const { originMs } = cellTimeline(cell.phases);
  // One row per client and second: two samples of a client rounding to the same second add up.
  const bySecond = new Map<string, { t: number; client: string; opsPerS: number }>();
  for (const p of phases) {
    for (const s of p.samples) {
      const row = { t: sampleSecond(originMs, s), client: clientName(p.name), opsPerS: s.okPerS };
      const key = `${row.client}\u0000${row.t}`;
      bySecond.set(key, { ...row, opsPerS: row.opsPerS + (bySecond.get(key)?.opsPerS ?? 0) });
    }
  }
  const rows = [...bySecond.values()];
  const means = phases.map((p) => ({ client: clientName(p.name), mean: p.samples.reduce((n, s) => n + s.okPerS, 0) / p.samples.length }));
  const busiest = means.reduce((a, b) => (b.mean > a.mean ? b : a));
  return [
    {
      id: figureId('clients', cell.cellId),
      heading: `How is throughput shared between the clients? ${cellLabel(cell, axes)}: ${phases.length} clients; the busiest, ${busiest.client}, averaged ${formatNumber(busiest.mean, 1)} successful ops/s while it ran.`,
      spec: {
        config: BASE_CONFIG,
        width: 720,
        height: 220,
        data: { values: rows },
        mark: { type: 'area', opacity: 0.85 },
        encoding: {
          x: { field: 't', type: 'quantitative', title: 'Seconds since start', scale: { domainMin: 0, nice: false } },
          // A client that has not started (or has stopped) adds nothing to the stack at that second.
          y: { field: 'opsPerS', type: 'quantitative', stack: 'zero', impute: { value: 0 }, title: 'Successful operations per second' },
          color: { field: 'client', type: 'nominal', title: 'Client' },
        },
      },
    },
  ];
}
