/**
 * The moving-site figure: drawn for a cell whose events include a move with per-second samples,
 * with throughput, the distance travelled and each link's configured RTT on one time axis, and a
 * heading that says how far the node went and what its links' RTT and throughput did.
 */
import { buildReport } from '../../report/build-report';
import { undrawable } from '../../report/figures/drawable';
import { siteMotion } from '../../report/figures/site-motion';
import { renderSvg } from '../../report/vega';
import { T0, cell, okSeries, phase, recorded, runRecord } from './builders';

const samples = [0, 1, 2, 3].map((s) => ({
  time: T0 + (10 + s) * 1000,
  km: s * 100,
  rttMs: { 'boat-paris/0': 90 - s * 10, 'cl-boat/0': 40 + s * 5 },
}));
const move = recorded('site-move', 'move boat', 10, T0, { detail: { node: 'boat', km: 300, overS: 3, samples } });
// 200 ops/s before the move, 100 while it moves, 200 after.
const counts = [...Array<number>(10).fill(200), ...Array<number>(3).fill(100), ...Array<number>(7).fill(200)];
const moved = cell('c1', {}, [phase('run', okSeries(counts), { events: [move] })]);

test('a cell with a move gets throughput, distance and RTT panels on one axis', () => {
  const [figure] = siteMotion(moved, []);
  expect(figure.id).toBe('site-motion-c1');
  expect(undrawable(figure)).toBeUndefined();
  const panels = (figure.spec as unknown as { vconcat: { data: { values: Record<string, number | string>[] } }[] }).vconcat;
  expect(panels).toHaveLength(3);
  expect(panels[1].data.values.map((r) => r.km)).toEqual([0, 100, 200, 300]);
  // Times are seconds since the first measured second began, as on the throughput timeline.
  expect(panels[1].data.values.map((r) => r.t)).toEqual([10, 11, 12, 13]);
  expect(panels[2].data.values.filter((r) => r.link === 'boat-paris/0').map((r) => r.rttMs)).toEqual([90, 80, 70, 60]);
  expect(figure.heading).toBe(
    'How did throughput follow the moving site? c1: boat moved 300 km over 3 s (configured RTT boat-paris/0 went from 90 ms to 60 ms, cl-boat/0 went from 40 ms to 55 ms); throughput went from 200 ops/s to 100 ops/s on average from before the move to during it.',
  );
});

test('no figure without a move, and the report includes it when there is one', () => {
  expect(siteMotion(cell('c2', {}, [phase('run', okSeries(counts))]), [])).toEqual([]);
  const model = buildReport(runRecord('r1', [moved]), [moved]);
  expect(model.figures.map((f) => f.id)).toContain('site-motion-c1');
});

test('the figure renders to SVG with its three panels', async () => {
  const [figure] = siteMotion(moved, []);
  const { svg, warnings } = await renderSvg(figure.spec);
  expect(warnings).toEqual([]);
  expect(svg).toContain('km travelled');
  expect(svg).toContain('Configured RTT (ms)');
  expect(svg).toContain('Successful ops/s');
});
