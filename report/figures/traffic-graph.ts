/**
 * Bytes exchanged per node pair drawn as a graph: nodes placed by site on a fixed circle (one
 * point per site, a site's nodes in a small ring around it), edge width by bytes. One figure per
 * database, a panel per workload, at the reference scaling factor when the run has one.
 */
import type { Inventory } from '../../core/inventory';
import type { CellRecord } from '../../core/run-record';
import { cellLabel, scaleLabel } from '../matrix';
import { pairBytes } from '../../core/cell-summary';
import { BASE_CONFIG, figureId, formatBytes, type Figure } from './figure';

interface Position {
  x: number;
  y: number;
  site: string;
  /** Which way the label goes: away from the site's centre, or from the circle's. */
  outward: { x: number; y: number };
}

/** Sites on a circle in inventory order, starting at the top; a site's nodes grouped around it. */
export function siteLayout(inventory: Inventory): Map<string, Position> {
  const sites = [...new Set(inventory.nodes.map((n) => n.site))];
  const positions = new Map<string, Position>();
  sites.forEach((site, i) => {
    const angle = Math.PI / 2 - (2 * Math.PI * i) / sites.length;
    const [sx, sy] = sites.length === 1 ? [0, 0] : [Math.cos(angle), Math.sin(angle)];
    const members = inventory.nodes.filter((n) => n.site === site);
    const ring = members.length === 1 ? 0 : Math.min(0.35, 0.08 * members.length);
    // Two nodes sit side by side across the radius; more form a ring around the site. Either
    // way each is labelled away from the site's centre.
    const across = members.length === 2;
    members.forEach((node, j) => {
      const a = across ? angle + Math.PI / 2 + Math.PI * j : Math.PI / 2 - (2 * Math.PI * j) / members.length;
      const outward = ring > 0 ? { x: Math.cos(a), y: Math.sin(a) } : sites.length === 1 ? { x: 0, y: 1 } : { x: sx, y: sy };
      positions.set(node.name, { x: sx + ring * Math.cos(a), y: sy + ring * Math.sin(a), site, outward });
    });
  });
  return positions;
}

/** Distance from a node to its label, in layout units (the circle has radius 1). */
const LABEL_GAP = 0.07;

function panelRows(inventory: Inventory, cell: CellRecord, panel: string) {
  const positions = siteLayout(inventory);
  const edges = pairBytes(cell.phases)
    .filter((p) => p.bytes > 0 && positions.has(p.a) && positions.has(p.b))
    .map((p) => {
      const [a, b] = [positions.get(p.a)!, positions.get(p.b)!];
      return { panel, type: 'edge', pair: `${p.a}–${p.b}`, x: a.x, y: a.y, x2: b.x, y2: b.y, bytes: p.bytes };
    });
  const nodes = [...positions].map(([name, pos]) => ({
    panel,
    type: 'node',
    name,
    x: pos.x,
    y: pos.y,
    labelX: pos.x + LABEL_GAP * pos.outward.x,
    labelY: pos.y + LABEL_GAP * pos.outward.y,
    align: pos.outward.x > 0.3 ? 'left' : pos.outward.x < -0.3 ? 'right' : 'center',
    baseline: pos.outward.y > 0.3 ? 'bottom' : pos.outward.y < -0.3 ? 'top' : 'middle',
    label: name === pos.site ? name : `${name} (${pos.site})`,
  }));
  return { edges, nodes };
}

export function trafficGraphs(inventory: Inventory, cells: CellRecord[], axis: string | undefined, reference: number | undefined): Figure[] {
  const withTraffic = cells.filter((c) => c.summary.bytesTransferred !== undefined && (axis === undefined || c.coordinates[axis] === reference));
  const databases = [...new Set(withTraffic.map((c) => String(c.coordinates.database ?? 'all')))];
  return databases.flatMap((database) => {
    const group = withTraffic.filter((c) => String(c.coordinates.database ?? 'all') === database);
    const panels = group.map((c) => ({ cell: c, panel: 'workload' in c.coordinates ? `workload ${c.coordinates.workload}` : cellLabel(c) }));
    const rows = panels.map(({ cell, panel }) => panelRows(inventory, cell, panel));
    const edges = rows.flatMap((r) => r.edges);
    if (edges.length === 0) return [];
    const busiest = edges.reduce((a, b) => (b.bytes > a.bytes ? b : a));
    const at = axis !== undefined && reference !== undefined ? ` at ${scaleLabel(reference)}` : '';
    const domain = [-1.55, 1.55];
    const position = (field: 'x' | 'y') => ({ field, type: 'quantitative' as const, axis: null, scale: { domain } });
    return [
      {
        id: figureId('traffic-graph', database),
        heading: `Which node pairs exchange the most data? ${database}${at}: the busiest pair is ${busiest.pair} with ${formatBytes(busiest.bytes)} (${busiest.panel}).`,
        spec: {
          config: BASE_CONFIG,
          data: { values: [...edges, ...rows.flatMap((r) => r.nodes)] },
          facet: { field: 'panel', type: 'nominal', title: null },
          columns: 3,
          spec: {
            width: 250,
            height: 250,
            layer: [
              {
                transform: [{ filter: "datum.type === 'edge'" }],
                mark: { type: 'rule', color: '#2166ac', opacity: 0.55, strokeCap: 'round' },
                encoding: {
                  x: position('x'),
                  y: position('y'),
                  x2: { field: 'x2' },
                  y2: { field: 'y2' },
                  strokeWidth: {
                    field: 'bytes',
                    type: 'quantitative',
                    title: 'Bytes transferred',
                    scale: { range: [0.5, 12] },
                    legend: { format: '.2s' },
                  },
                },
              },
              {
                transform: [{ filter: "datum.type === 'node'" }],
                mark: { type: 'circle', size: 90, color: '#333333', opacity: 1 },
                encoding: { x: position('x'), y: position('y') },
              },
              {
                transform: [{ filter: "datum.type === 'node'" }],
                mark: { type: 'text', fontSize: 10, color: '#111111', align: { expr: 'datum.align' }, baseline: { expr: 'datum.baseline' } },
                encoding: { x: { ...position('x'), field: 'labelX' }, y: { ...position('y'), field: 'labelY' }, text: { field: 'label' } },
              },
            ],
          },
        },
      },
    ];
  });
}
