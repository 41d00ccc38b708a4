/**
 * How punctually scenario events fire. Rehearses a timeline of `--minutes` (default 30) with a
 * latency epoch and a link cut or restore every simulated minute, shrunk by `--time-scale`
 * (default 0.1), on the local fleet fhc-4 with Redis Cluster and YCSB running throughout, and
 * prints the distribution of (requested time - scheduled time) over every event. Target: < 1 s.
 *
 *   npx tsx bench/events.ts [--minutes 30] [--time-scale 0.1]
 *   npx tsx bench/events.ts --short   (CI: 2 minutes at time scale 0.1, 12 s of timeline)
 *
 * Needs root and no other local fleet up; uses a throw-away Temporal dev server.
 */
import { option, SHORT } from './args';
import { percentile, withEngine } from './engine';
import { runBenchmark, Targets } from './targets';

const targets = new Targets();

function timeline(minutes: number): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (let m = 1; m < minutes; m++) {
    events.push({ at: m * 60, latency: [0.2, 0.4, 0.6, 0.8, 1.0][m % 5] });
    events.push({ at: m * 60 + 30, [m % 2 ? 'cut' : 'restore']: 'sydney-pune/0' });
  }
  return events;
}

async function main() {
  const minutes = option('minutes', SHORT ? 2 : 30);
  const timeScale = option('time-scale', 0.1);
  await withEngine('fhc-4', async (runScenario) => {
    const scenario = {
      name: 'bench-events',
      experiment: 'timed-events',
      fleet: { local: 'fhc-4' },
      database: { name: 'redis', nodes: ['sydney', 'pune', 'singapore'] },
      ycsb: { workload: 'a', recordCount: 1000, threads: 4, fieldCount: 10, fieldLength: 8, timeoutMs: 2000, retries: 1 },
      matrix: { latencyScale: [0.2] },
      phases: [{ phase: 'flush' }, { phase: 'load' }, { phase: 'run', duration: minutes * 60, events: timeline(minutes) }],
    };
    const { cells, phaseOrigins } = await runScenario({ scenario, options: { timeScale } });
    const origin = phaseOrigins[0];
    if (origin === undefined) throw new Error('never saw the run phase start');
    const run = cells[0].phases.find((p) => p.name === 'run')!;
    const late = run.events
      .filter((e) => e.kind !== 'client-restart')
      .map((e) => e.requestedAt - (origin + e.scheduledOffsetS * 1000))
      .sort((a, b) => a - b);
    if (late.length === 0) throw new Error('no event fired');
    console.log(
      `events: ${late.length} over a ${minutes}-minute timeline at time scale ${timeScale} (${((minutes * 60 * timeScale) / 60).toFixed(1)} min real)`,
    );
    console.log(
      `firing error ms: min ${late[0]} median ${percentile(late, 50)} p95 ${percentile(late, 95)} max ${late[late.length - 1]}; ` +
        `within 1 s: ${late.filter((l) => Math.abs(l) < 1000).length}/${late.length}`,
    );
    targets.count('events requested within 1 s of their scheduled time', late.filter((l) => Math.abs(l) < 1000).length, late.length, late.length, {
      onMiss: `firing errors ${late.join(', ')} ms`,
    });
  });
}

runBenchmark('events', main, targets);
