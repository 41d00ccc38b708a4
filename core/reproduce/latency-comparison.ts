/**
 * The latency reproduction beside the published values (published-latency.json): each ratio with
 * whether ours agrees, each ordering with whether it holds in our figures. The rules:
 * - a ratio agrees when our median lies inside its published range, or within 20 % of a single
 *   published value; separately, we say whether the published value (or range) falls inside (or
 *   meets) our 95 % interval;
 * - an ordering holds when it holds between our medians; we also count the repetitions in which
 *   it held on their own figures;
 * - a ratio is computed per repetition from that repetition's two throughputs, only where both
 *   were measured `ok`.
 */
import type { Workload } from '../ycsb';
import type { Figure } from './figures';
import { epochLabel } from './experiment';
import { LATENCY_SCALES, LATENCY_WORKLOADS } from './latency';
import { estimate, median, type Estimate } from './statistics';

export const AGREEMENT_TOLERANCE = 0.2;

export interface PublishedLatency {
  setup: Record<string, string | number>;
  ratios: { database: string; workload: string; ratio: string; published?: number; publishedRange?: [number, number] }[];
  orderings: string[];
}

export interface RatioRow {
  entry: string;
  published: string;
  ours?: Estimate;
  agrees?: boolean;
  publishedInsideInterval?: boolean;
  /** Why there is no figure: not run here, not runnable, not reproducible. */
  note?: string;
  /** Where no repetition was `ok`: the same ratio from the flagged figures, for reading only. */
  flagged?: Estimate;
}

export interface OrderingRow {
  entry: string;
  holds?: boolean;
  /** Repetitions in which it held / could be judged. */
  heldIn: number;
  judgedIn: number;
  /** Our figures it was judged on, or why it could not be. */
  shows: string;
}

export interface LatencyComparison {
  ratios: RatioRow[];
  orderings: OrderingRow[];
  notRunnable: string[];
}

/** One repetition's throughput T(database, workload, scale), or why there is none. */
type Lookup = (database: string, workload: Workload, scale: number) => number | undefined;

/** `okOnly: false` reads flagged figures too: shown beside "not reproducible here", never as ours. */
function repetitionLookup(figures: Figure[], okOnly = true): Lookup {
  return (database, workload, scale) =>
    figures.find(
      (f) => f.database === database && f.phase === epochLabel(workload, scale) && f.measure === 'throughput' && (!okOnly || f.verdict === 'ok'),
    )?.value;
}

function flaggedWhy(perRepetition: Figure[][], database: string, workload: Workload, scales: number[]): string | undefined {
  const flagged = perRepetition
    .flat()
    .find(
      (f) => f.database === database && scales.some((s) => f.phase === epochLabel(workload, s)) && f.measure === 'throughput' && f.verdict !== 'ok',
    );
  return flagged && `not reproducible here (verdict ${flagged.verdict}${flagged.why ? `: ${flagged.why}` : ''})`;
}

const RATIO = /^T\(([\d.]+)\)\/T\(([\d.]+)\)$/;

function ratioRow(entry: PublishedLatency['ratios'][number], perRepetition: Figure[][]): RatioRow {
  const label = `${entry.database} ${entry.workload.toUpperCase()} ${entry.ratio}`;
  const published = entry.publishedRange ? `${entry.publishedRange[0]}–${entry.publishedRange[1]}` : String(entry.published);
  const match = RATIO.exec(entry.ratio);
  const workload = entry.workload as Workload;
  if (!match) return { entry: label, published, note: `not computed: "${entry.ratio}" is not of the form T(x)/T(y)` };
  const [top, bottom] = [Number(match[1]), Number(match[2])];
  if (!['redis', 'cassandra'].includes(entry.database)) return { entry: label, published, note: 'not runnable on this host' };
  if (!LATENCY_WORKLOADS.includes(workload)) {
    return {
      entry: label,
      published,
      note: `not run here: workload ${entry.workload.toUpperCase()} is left out to keep the experiment under 30 minutes (A, C, E, F are run)`,
    };
  }
  if (![top, bottom].every((s) => LATENCY_SCALES.includes(s)))
    return { entry: label, published, note: `not run here: scales ${LATENCY_SCALES.join(', ')} only` };
  const ratiosOf = (okOnly: boolean) =>
    perRepetition
      .map((f) => repetitionLookup(f, okOnly))
      .flatMap((t) => {
        const [a, b] = [t(entry.database, workload, top), t(entry.database, workload, bottom)];
        return a !== undefined && b !== undefined && b > 0 ? [a / b] : [];
      });
  const ratios = ratiosOf(true);
  if (ratios.length === 0) {
    const flagged = ratiosOf(false);
    return {
      entry: label,
      published,
      note: flaggedWhy(perRepetition, entry.database, workload, [top, bottom]) ?? 'not measured',
      ...(flagged.length ? { flagged: estimate(flagged) } : {}),
    };
  }
  const ours = estimate(ratios);
  return { entry: label, published, ours, ...judgeRatio(ours, entry) };
}

/** The agreement rules, on their own so that they can be checked on constructed figures. */
export function judgeRatio(
  ours: Estimate,
  published: { published?: number; publishedRange?: [number, number] },
): Pick<RatioRow, 'agrees' | 'publishedInsideInterval'> {
  if (published.publishedRange) {
    const [lo, hi] = published.publishedRange;
    return { agrees: ours.median >= lo && ours.median <= hi, publishedInsideInterval: lo <= ours.high && hi >= ours.low };
  }
  const p = published.published!;
  return { agrees: Math.abs(ours.median - p) <= AGREEMENT_TOLERANCE * p, publishedInsideInterval: p >= ours.low && p <= ours.high };
}

/** The client threads a database's throughputs were measured with, when one count holds for all of them. */
type ThreadsOf = (database: string) => number | undefined;

/** An ordering's judgement on one set of throughputs: held or not, with what it compared; undefined = missing figures. */
type OrderingRule = (t: Lookup, threads: ThreadsOf) => { holds: boolean; shows: string } | { missing: string };

const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toPrecision(3));

function need(t: Lookup, database: string, workload: Workload, scale: number): number | string {
  return t(database, workload, scale) ?? `${database} ${workload.toUpperCase()} at ${scale}`;
}

/** Runs `judge` on the values it asked for, or names the first missing one. */
function withValues(values: (number | string)[], judge: (v: number[]) => { holds: boolean; shows: string }): ReturnType<OrderingRule> {
  const missing = values.filter((v): v is string => typeof v === 'string');
  return missing.length > 0 ? { missing: missing.join(', ') } : judge(values as number[]);
}

const sensitivity = (t: Lookup, db: string, w: Workload) => {
  const [a, b] = [need(t, db, w, 0.2), need(t, db, w, 1.0)];
  return typeof a === 'number' && typeof b === 'number' ? a / b : typeof a === 'string' ? a : (b as string);
};

/** The published orderings this comparison knows how to judge, by their exact text. */
export const ORDERING_RULES: Record<string, OrderingRule> = {
  'redis T(0.2)/T(1.0) > cassandra T(0.2)/T(1.0), workloads a and c': (t) =>
    withValues(
      (['a', 'c'] as Workload[]).flatMap((w) => [sensitivity(t, 'redis', w), sensitivity(t, 'cassandra', w)]),
      ([ra, ca, rc, cc]) => ({
        holds: ra > ca && rc > cc,
        shows: `A: ${fmt(ra)} vs ${fmt(ca)}; C: ${fmt(rc)} vs ${fmt(cc)}`,
      }),
    ),
  // The published run gave both databases one client; here they ran with different threads
  // (JVMs cost this host more), and closed-loop throughput grows with threads: compared per thread.
  'redis throughput > cassandra throughput for workloads a and f, at scale 0.2 and 1.0': (t, threads) => {
    const cases: [Workload, number][] = [
      ['a', 0.2],
      ['a', 1.0],
      ['f', 0.2],
      ['f', 1.0],
    ];
    const [rt, ct] = [threads('redis'), threads('cassandra')];
    const perThread = rt !== undefined && ct !== undefined && rt !== ct;
    const per = (x: number, n: number | undefined) => (perThread ? x / n! : x);
    return withValues(
      cases.flatMap(([w, s]) => [need(t, 'redis', w, s), need(t, 'cassandra', w, s)]),
      (v) => {
        const pairs = cases.map((_, i) => [per(v[2 * i], rt), per(v[2 * i + 1], ct)]);
        const unit = perThread ? 'ops/s per thread' : 'ops/s';
        return {
          holds: pairs.every(([r, c]) => r > c),
          shows: `${perThread ? `per client thread (redis ${rt}, cassandra ${ct} threads): ` : ''}${cases.map(([w, s], i) => `${w.toUpperCase()}@${s}: ${fmt(pairs[i][0])} vs ${fmt(pairs[i][1])} ${unit}`).join('; ')}`,
        };
      },
    );
  },
  'for both databases, workloads e and f have the lowest throughput': (t) => {
    const cases = ['redis', 'cassandra'].flatMap((db) => LATENCY_SCALES.map((s) => ({ db, s })));
    const values = cases.flatMap(({ db, s }) => LATENCY_WORKLOADS.map((w) => need(t, db, w, s)));
    return withValues(values, (v) => {
      const lowest = cases.map((_, i) => {
        const row = LATENCY_WORKLOADS.map((w, j) => ({ w, x: v[i * LATENCY_WORKLOADS.length + j] })).sort((a, b) => a.x - b.x);
        return row
          .slice(0, 2)
          .map((r) => r.w)
          .sort()
          .join('');
      });
      return {
        holds: lowest.every((l) => l === 'ef'),
        shows: `lowest two of A, C, E, F: ${cases.map(({ db, s }, i) => `${db}@${s} ${lowest[i].toUpperCase().split('').join('+')}`).join('; ')}`,
      };
    });
  },
  'redis: workload e is its most latency-sensitive workload; cassandra: e among its least sensitive': (t) => {
    const values = ['redis', 'cassandra'].flatMap((db) => LATENCY_WORKLOADS.map((w) => sensitivity(t, db, w)));
    return withValues(values, (v) => {
      const n = LATENCY_WORKLOADS.length;
      const redis = LATENCY_WORKLOADS.map((w, i) => ({ w, x: v[i] })).sort((a, b) => b.x - a.x);
      const cassandra = LATENCY_WORKLOADS.map((w, i) => ({ w, x: v[n + i] })).sort((a, b) => a.x - b.x);
      const list = (rows: { w: string; x: number }[]) => rows.map((r) => `${r.w.toUpperCase()} ${fmt(r.x)}`).join(' > ');
      return {
        // "Among the least sensitive": in the lower half of the workloads run.
        holds: redis[0].w === 'e' && cassandra.slice(0, n / 2).some((r) => r.w === 'e'),
        shows: `T(0.2)/T(1.0), redis: ${list(redis)}; cassandra: ${list([...cassandra].reverse())}`,
      };
    });
  },
};

function medianLookup(perRepetition: Figure[][], okOnly = true): Lookup {
  const lookups = perRepetition.map((f) => repetitionLookup(f, okOnly));
  return (db, w, s) => {
    const values = lookups.map((t) => t(db, w, s)).filter((v): v is number => v !== undefined);
    return values.length > 0 ? median(values) : undefined;
  };
}

function threadsOf(perRepetition: Figure[][]): ThreadsOf {
  return (database) => {
    const counts = new Set(
      perRepetition
        .flat()
        .filter((f) => f.database === database && f.measure === 'throughput')
        .map((f) => f.threads),
    );
    const [only] = counts;
    return counts.size === 1 ? only : undefined;
  };
}

function orderingRow(text: string, perRepetition: Figure[][]): OrderingRow {
  const rule = ORDERING_RULES[text];
  if (!rule) return { entry: text, heldIn: 0, judgedIn: 0, shows: 'not computed: no rule for this ordering' };
  const threads = threadsOf(perRepetition);
  const onMedians = rule(medianLookup(perRepetition), threads);
  const perRep = perRepetition
    .map((figures) => rule(repetitionLookup(figures), threads))
    .filter((r): r is { holds: boolean; shows: string } => 'holds' in r);
  const counts = { heldIn: perRep.filter((r) => r.holds).length, judgedIn: perRep.length };
  if ('missing' in onMedians) {
    const flagged = rule(medianLookup(perRepetition, false), threads);
    const reading = 'holds' in flagged ? `; on the flagged figures it ${flagged.holds ? 'holds' : 'does not hold'} (${flagged.shows})` : '';
    return { entry: text, ...counts, shows: `not reproducible here: no ok figure for ${onMedians.missing}${reading}` };
  }
  return { entry: text, holds: onMedians.holds, ...counts, shows: onMedians.shows };
}

/** `perRepetition[i]`: the latency reproduction's figures of repetition i + 1 (both parts). */
export function compareLatency(published: PublishedLatency, perRepetition: Figure[][]): LatencyComparison {
  return {
    ratios: published.ratios.map((r) => ratioRow(r, perRepetition)),
    orderings: published.orderings.map((o) => orderingRow(o, perRepetition)),
    notRunnable: ['MongoDB', 'MySQL Cluster'],
  };
}
