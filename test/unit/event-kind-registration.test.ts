/**
 * A new event kind is one module plus one registration: the toy `note` kind (test/support) is
 * validated against the fleet, planned, applied by the injector and shown by the live view and
 * the report, with nothing else touched. The workflow side is in test/workflow/event-kinds.test.ts.
 */
import { injectEventInto, type EventTargets } from '../../activities/scenario';
import { topologyView } from '../../operations/scenario/scenario-fleet';
import { statusLine } from '../../cli/run-follow';
import type { EventKind } from '../../core/events';
import { registerEventKind } from '../../core/event-kinds/registry';
import { loadTopology } from '../../core/load-topology';
import { formatPlanView, planView } from '../../core/plan-view';
import type { EventAction, PlannedEvent, RunPlan } from '../../core/scenario';
import { planScenario, type ResolvedFleet } from '../../core/scenario-plan';
import { checkScenarioShape } from '../../core/scenario-schema';
import { runContents } from '../../report/contents';
import { eventStyle } from '../../report/figures/figure';
import { throughputTimeline } from '../../report/figures/throughput-timeline';
import { reportQuestion } from '../../report/question';
import { isDisturbance } from '../../core/cell-timeline';
import { cell, okSeries, phase, recorded } from '../report/builders';
import { inputProblems } from '../support/input-problems';
import { note } from '../support/note-event-kind';

registerEventKind(note);

const fhc4: ResolvedFleet = { ref: { kind: 'local' }, view: topologyView(loadTopology('fhc-4')) };

const scenario = (events: unknown[]) => ({
  name: 't',
  experiment: 'notes',
  fleet: { local: 'fhc-4' },
  database: { name: 'redis', nodes: ['sydney', 'pune', 'singapore'] },
  phases: [{ phase: 'flush' }, { phase: 'load' }, { phase: 'run', duration: 60, events }],
});

const plan = (events: unknown[]): RunPlan => planScenario(checkScenarioShape(scenario(events)), () => fhc4);
const problems = (events: unknown[]) => inputProblems(() => plan(events)).map((e) => e.message);
const runEvents = (p: RunPlan) => p.cells[0].phases.flatMap((ph) => (ph.kind === 'run' ? ph.events : []));

test('validated: its shape by the schema built from the kinds, its meaning against the fleet, with the field path', () => {
  expect(problems([{ at: 10, note: 5 }])).toEqual(['phases[2].events[0].note: must be string or array (got 5)']);
  expect(problems([{ at: 10, note: ['pune is far', 'mars is farther'] }])).toEqual([
    'phases[2].events[0].note[1]: names no node of fhc-4; mention one of: sydney, pune, singapore, seoul, client',
  ]);
  expect(problems([{ at: 10, note: 'x', cut: 'sydney-pune/0' }])[0]).toMatch(
    /needs exactly one action \(found cut, note\); use one of: .*measureTraffic, note$/,
  );
});

test('planned: expanded like any kind, with its label, and the line validate prints', () => {
  const p = plan([{ at: 10, every: 20, note: ['sydney is slow', 'pune recovers'] }]);
  expect(runEvents(p).map((e) => [e.atS, e.label, e.path])).toEqual([
    [10, 'note: sydney is slow', 'phases[2].events[0].note[0]'],
    [30, 'note: pune recovers', 'phases[2].events[0].note[1]'],
  ]);
  const text = formatPlanView(planView(p, fhc4.view, 2));
  expect(text).toMatch(/at 10 s \(~\S+ s into the run\): note "sydney is slow"/);
});

test('applied: the injector asks its module, which calls no fleet activity, and records the note', async () => {
  const untouched = () => Promise.reject(new Error('a note calls no activity'));
  const targets = Object.fromEntries(
    ['applyLatencyEpoch', 'applyBandwidthEpoch', 'cutLink', 'restoreLink', 'measureRtt', 'readTraffic', 'addNode', 'removeNode'].map((n) => [
      n,
      jest.fn(untouched),
    ]),
  ) as unknown as EventTargets;
  const event: PlannedEvent = {
    atS: 10,
    label: 'note: sydney is slow',
    path: 'p',
    action: { kind: 'note', text: 'sydney is slow' } as unknown as EventAction,
  };
  const done = await injectEventInto(targets, { fleet: { kind: 'local' }, database: 'redis', event });
  expect(done).toEqual({
    event: {
      kind: 'note',
      label: 'note: sydney is slow',
      scheduledOffsetS: 10,
      requestedAt: expect.any(Number) as unknown,
      detail: { text: 'sydney is slow' },
    },
  });
  for (const fn of Object.values(targets)) expect(fn).not.toHaveBeenCalled();
});

test('presented: the live view shows its label, the report its marker and its plural', () => {
  const line = statusLine(
    {
      status: 'running',
      cellIndex: 1,
      cellCount: 1,
      cell: { cellId: 'c1', step: 'run', latestSamples: [], lastEvent: { label: 'note: sydney is slow', requestedAt: 0 } },
    } as never,
    undefined,
  );
  expect(line).toContain('| last: note: sydney is slow');

  const kind = 'note' as EventKind;
  expect(eventStyle(kind)).toEqual({ name: 'note', color: '#000000' });
  expect(isDisturbance(kind)).toBe(true);
  const cells = [
    cell('c1', { database: 'redis' }, [phase('run', okSeries([100, 100, 100, 100]), { events: [recorded(kind, 'note: sydney is slow', 2)] })]),
  ];
  const [figure] = throughputTimeline(cells[0], []);
  const spec = JSON.stringify(figure.spec);
  expect(spec).toContain('"domain":["note"],"range":["#000000"]');
  expect(spec).toContain('note: sydney is slow');
  expect(reportQuestion(runContents(cells))).toContain('respond to notes');
});
