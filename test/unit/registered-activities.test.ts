/**
 * The worker registers exactly the activities the workflows schedule: one that no workflow calls
 * is surface without a caller (and a name the UI lists for nothing), one that a workflow calls but
 * the worker lacks fails a run at its first use. Read from the source: the proxies of
 * workflows/activities.ts, and each `group.name(` or `group.name.executeWithOptions(` in workflows/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as activities from '../../activities';

const WORKFLOWS = path.resolve(__dirname, '../../workflows');

function proxyGroups(source: string): string[] {
  return [...source.matchAll(/export const (\w+) = proxyActivities</g)].map((m) => m[1]);
}

function scheduledNames(groups: string[], sources: string[]): string[] {
  // A chained call may be broken across lines (`scenario.injectEvent\n  .executeWithOptions(`).
  const call = new RegExp(`\\b(?:${groups.join('|')})\\.(\\w+)(?:\\s*\\.executeWithOptions)?\\(`, 'g');
  return [...new Set(sources.flatMap((text) => [...text.matchAll(call)].map((m) => m[1])))].sort();
}

const workflowSources = readdirSync(WORKFLOWS)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(path.join(WORKFLOWS, f), 'utf8'));

test('the registered activities are the scheduled ones', () => {
  const groups = proxyGroups(readFileSync(path.join(WORKFLOWS, 'activities.ts'), 'utf8'));
  expect(groups).toEqual(expect.arrayContaining(['network', 'cluster', 'load', 'scenario']));
  const registered = Object.keys(activities).sort();
  expect(registered).toEqual(scheduledNames(groups, workflowSources));
});

test('the reading sees both ways a workflow schedules an activity, and nothing else', () => {
  const source = 'await load.ycsbRun.executeWithOptions(o, [x]); await cluster.stopCluster({}); phase.load(); loads.other();';
  expect(scheduledNames(['load', 'cluster'], [source])).toEqual(['stopCluster', 'ycsbRun']);
  expect(scheduledNames(['scenario'], ['await scenario.injectEvent\n    .executeWithOptions(o, [x])'])).toEqual(['injectEvent']);
});
