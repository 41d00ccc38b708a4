/** The epoch figures name what a cell ran even where it is not a matrix axis. */
import { normalizedVsScale } from '../../report/figures/scaling';
import { cell, okSeries, phase } from './builders';

const redisCell = (scale: number, ops: number) => {
  const c = cell(`lsf${scale}`, { latencyScale: scale }, [phase('run', okSeries([ops, ops, ops]))]);
  return {
    ...c,
    summary: { ...c.summary, normalizedThroughput: ops / 100 },
    cluster: { database: 'redis', version: '7.0.15', nonDefaultSettings: {} },
  };
};

test('a run of one database (not a matrix axis) is drawn as that database, not as "all"', () => {
  const [figure] = normalizedVsScale([redisCell(0.2, 500), redisCell(1, 100)], 'latencyScale', 'normalizedThroughput');
  const rows = (figure.spec as { data: { values: { database: string; value: number }[] } }).data.values;
  expect(new Set(rows.map((r) => r.database))).toEqual(new Set(['redis']));
});
