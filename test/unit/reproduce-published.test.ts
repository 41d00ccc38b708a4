/**
 * The papers' published results as the repository keeps them: byte for byte the shared reference
 * file (when ../shared/reference is beside the checkout), valid against their own schema through
 * the one schema module, every id unique, and a figure's printed value read as what it allows.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { publishedEntry, publishedExperimentIds, publishedIds, publishedResults, targetOf, PUBLISHED_FILE } from '../../core/reproduce/published';
import { schemaProblems } from '../../core/schema/validator';

const ROOT = path.resolve(__dirname, '../..');
const SHARED = path.resolve(ROOT, '..', 'shared', 'reference', 'published-results.json');
const ours = () => readFileSync(path.join(ROOT, PUBLISHED_FILE));

(existsSync(SHARED) ? test : test.skip)('the copy is byte for byte ../shared/reference/published-results.json', () => {
  expect(ours().equals(readFileSync(SHARED))).toBe(true);
});

test('the file is valid against core/reproduce/published-results.schema.json, and every figure and claim id is unique', () => {
  const data: unknown = JSON.parse(ours().toString('utf8'));
  expect(schemaProblems('publishedResults', data)).toEqual([]);
  expect(publishedExperimentIds()).toHaveLength(13);
  const ids = publishedExperimentIds().flatMap(publishedIds);
  expect(ids).toHaveLength(265);
  expect(new Set(ids).size).toBe(ids.length);
  expect(publishedResults().about).toMatch(/never targets to tune a set-up towards/);
});

test('the schema refuses a figure with both a value and a range, a range with a bound, and a claim without its text, naming each', () => {
  const data = JSON.parse(ours().toString('utf8')) as Record<string, { figures: Record<string, unknown>[]; claims: Record<string, unknown>[] }>;
  data.latency.figures[0] = { ...data.latency.figures[0], range: [1, 2] };
  data.traffic.figures[11] = { ...data.traffic.figures[11], bound: 'lower' };
  delete data['overlay-paths'].claims[0].claim;
  const problems = schemaProblems('publishedResults', data).map((p) => p.path);
  expect(problems).toEqual(expect.arrayContaining(['latency.figures[0]', 'traffic.figures[11]', 'overlay-paths.claims[0].claim']));
});

test("a figure's printed value is the set of values it allows", () => {
  const figure = (experiment: string, id: string) => {
    const e = publishedEntry(experiment, id);
    if (!('figure' in e)) throw new Error(`${id} is a claim`);
    return e.figure;
  };
  expect(targetOf(figure('latency', 'lat-cassandra-a-x-2x'))).toEqual({ low: 1.38, high: 1.38, text: '1.38' });
  expect(targetOf(figure('latency', 'lat-others-bcd-x-5x'))).toEqual({ low: 4, high: Infinity, text: '≥ 4' });
  expect(targetOf(figure('traffic', 'trf-redis-a-growth'))).toEqual({ low: -Infinity, high: 65, text: '≤ 65' });
  expect(targetOf(figure('offline-sizing', 'os-redis-x-vs-5x'))).toEqual({ low: 5, high: 6, text: '5–6' });
  expect(() => publishedEntry('latency', 'lat-nothing')).toThrow(/latency\.lat-nothing: no figure or claim "lat-nothing" in latency/);
});
