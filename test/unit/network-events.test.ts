/**
 * The network dynamics a scenario can write: per-direction topology links, and network, ramp,
 * partition, heal and flap events at every grain. Validation names the field and the fix; plans
 * say what each event touches; the pure parts (selection, ramp fractions, scaled conditions) hold.
 */
import { validateTopology } from '../../core/validate-topology';
import { linkConditionsOf, type Topology } from '../../core/topology';
import { conditionsBetween, rampFraction, referenceConditions, scaledConditions } from '../../core/link-conditions';
import { linksBetweenGroups, selectLinks } from '../../core/link-selection';
import { flap, stepOver, targetOf } from '../../infra/shaping/condition-events';
import type { FleetNetwork } from '../../infra/shaping/fleet-network';
import { inputProblems } from '../support/input-problems';
import { eventPlanner } from '../support/event-planning';

const TOPOLOGY: Topology = {
  name: 'dyn',
  client: 'cl',
  nodes: [
    { name: 'cl', site: 'x' },
    { name: 'alpha', site: 'a' },
    { name: 'bravo', site: 'b', tags: ['mobile'] },
    { name: 'charlie', site: 'c', tags: ['mobile'] },
    { name: 'delta', site: 'd' },
  ],
  links: [
    { a: 'cl', b: 'alpha', latencyMs: 2, bandwidthMbps: 100 },
    { a: 'alpha', b: 'bravo', latencyMs: 40, bandwidthMbps: 50, 'a->b': { bandwidthMbps: 5, delayMs: 30 } },
    { a: 'bravo', b: 'charlie', latencyMs: 10, bandwidthMbps: 100, lossPercent: 1, jitterMs: 2 },
    { a: 'charlie', b: 'delta', 'a->b': { delayMs: 5, bandwidthMbps: 10 }, 'b->a': { delayMs: 7, bandwidthMbps: 20 } },
    { a: 'alpha', b: 'delta', latencyMs: 20, bandwidthMbps: 100 },
  ],
};

const { fleet, plan, problems } = eventPlanner(TOPOLOGY, ['alpha', 'bravo', 'charlie']);
const planLines = (events: string) => {
  const [phase] = plan(events).cells[0].phases;
  return phase.kind === 'run' ? phase.events.map((e) => e.label) : [];
};

describe('topology links per direction', () => {
  test('a direction inherits what it does not give; the round trip is the sum of the delays', () => {
    const link = linkConditionsOf(TOPOLOGY.links[1]);
    expect(link.latencyMs).toBe(50);
    expect(referenceConditions(link)).toEqual({
      ab: { delayMs: 30, bandwidthMbps: 5, lossPercent: 0, jitterMs: 0 },
      ba: { delayMs: 20, bandwidthMbps: 50, lossPercent: 0, jitterMs: 0 },
    });
    const only = linkConditionsOf(TOPOLOGY.links[3]);
    expect(only).toMatchObject({ latencyMs: 12, bandwidthMbps: 10 });
    expect(referenceConditions(linkConditionsOf(TOPOLOGY.links[2])).ba).toEqual({ delayMs: 5, bandwidthMbps: 100, lossPercent: 1, jitterMs: 2 });
  });

  test('a link with neither a shared nor per-direction delay is refused, naming the field and the fix', () => {
    const bad = {
      ...TOPOLOGY,
      links: [...TOPOLOGY.links.slice(0, 3), { a: 'charlie', b: 'delta', bandwidthMbps: 10, 'a->b': { delayMs: 5 } }, TOPOLOGY.links[4]],
    };
    expect(inputProblems(() => validateTopology(bad)).map((e) => e.message)).toEqual([
      'links[3].latencyMs: missing: give latencyMs for both directions, or delayMs in "b->a"',
    ]);
    const lossy = { ...TOPOLOGY, links: [{ ...TOPOLOGY.links[0], lossPercent: 120 }, ...TOPOLOGY.links.slice(1)] };
    expect(
      inputProblems(() => validateTopology(lossy))
        .map((e) => e.message)
        .join('\n'),
    ).toMatch(/^links\[0\]\.lossPercent: must be <= 100/);
  });

  test('scales multiply delays and caps of both directions; loss and jitter stay', () => {
    const scaled = scaledConditions(referenceConditions(linkConditionsOf(TOPOLOGY.links[1])), { latencyScale: 0.5, bandwidthScale: 2 });
    expect(scaled.ab).toEqual({ delayMs: 15, bandwidthMbps: 10, lossPercent: 0, jitterMs: 0 });
    expect(scaled.ba.delayMs).toBe(10);
  });
});

describe('selection', () => {
  const view = fleet.view;
  test('a node out is what it sends on each of its links; in the reverse; a tag takes every member', () => {
    expect(selectLinks({ node: 'bravo' }, 'out', view)).toEqual([
      { id: 'alpha-bravo/0', directions: ['ba'] },
      { id: 'bravo-charlie/0', directions: ['ab'] },
    ]);
    expect(selectLinks({ node: 'bravo' }, 'in', view)).toEqual([
      { id: 'alpha-bravo/0', directions: ['ab'] },
      { id: 'bravo-charlie/0', directions: ['ba'] },
    ]);
    // bravo-charlie lies inside the group: both ways.
    expect(selectLinks({ tag: 'mobile' }, 'out', view)).toEqual([
      { id: 'alpha-bravo/0', directions: ['ba'] },
      { id: 'bravo-charlie/0', directions: ['ab', 'ba'] },
      { id: 'charlie-delta/0', directions: ['ab'] },
    ]);
  });

  test('a partition cuts exactly the links between its groups', () => {
    expect(
      linksBetweenGroups(
        [
          ['alpha', 'bravo'],
          ['charlie', 'delta'],
        ],
        view,
      ),
    ).toEqual(['bravo-charlie/0', 'alpha-delta/0']);
  });
});

describe('network events in a scenario', () => {
  test.each([
    [
      'two selectors',
      '      - { at: 10, network: { link: alpha-bravo/0, node: alpha, cut: true } }',
      /^phases\[0\]\.events\[0\]\.network: give exactly one of link, node, tag or all \(got link, node\)/,
    ],
    [
      'an unknown tag, naming the tags',
      '      - { at: 10, network: { tag: satellite, set: { lossPercent: 5 } } }',
      /^phases\[0\]\.events\[0\]\.network: no node of fleet dyn has tag "satellite"; tags: mobile \(at 10 s\)$/,
    ],
    [
      'a one-link direction on a node',
      '      - { at: 10, network: { node: alpha, direction: a->b, set: { delayMs: 5 } } }',
      /direction "a->b" is for one link; for a node, a tag or all write out, in or both/,
    ],
    [
      'a round trip set on one direction',
      '      - { at: 10, network: { link: alpha-bravo/0, direction: b->a, set: { latencyMs: 50 } } }',
      /latencyMs is a round trip and this event sets one direction: give delayMs/,
    ],
    [
      'two changes at once',
      '      - { at: 10, network: { all: true, cut: true, reset: true } }',
      /^phases\[0\]\.events\[0\]\.network: give exactly one of set, scale, cut, restore, reset \(got cut, reset\)$/,
    ],
    ['loss over 100 %', '      - { at: 10, network: { all: true, set: { lossPercent: 101 } } }', /network\.set\.lossPercent: must be <= 100/],
    [
      'a partition with a node on both sides',
      '      - { at: 10, partition: [[alpha, bravo], [bravo, charlie]] }',
      /^phases\[0\]\.events\[0\]\.partition: node "bravo" is in two groups/,
    ],
    ['a partition that cuts nothing', '      - { at: 10, partition: [[cl], [delta]] }', /the partition would cut nothing/],
    [
      'a ramp without its duration',
      '      - { at: 10, ramp: { link: alpha-bravo/0, to: { latencyMs: 200 } } }',
      /^phases\[0\]\.events\[0\]\.ramp\.over: is required: seconds from the event to the target$/,
    ],
    [
      'a flap on a cut link',
      '      - { at: 5, cut: alpha-bravo/0 }\n      - { at: 10, flap: { link: alpha-bravo/0, period: 2, for: 10 } }',
      /^phases\[0\]\.events\[1\]\.flap: link "alpha-bravo\/0" is cut at 10 s: restore it before it can flap$/,
    ],
    [
      'restoring what a network cut did not cut',
      '      - { at: 10, network: { link: alpha-bravo/0, direction: a->b, cut: true } }\n      - { at: 20, restore: alpha-bravo/0 }',
      /restore: link "alpha-bravo\/0" is not cut at 20 s/,
    ],
  ])('%s', (_name, events, expected) => {
    expect(problems(events).join('\n')).toMatch(expected);
  });

  test('valid events plan as what they touch, and a partition then heal leaves nothing cut for restore checks', () => {
    expect(
      planLines(`      - { at: 5, network: { node: bravo, direction: out, set: { bandwidthMbps: 2 } } }
      - { at: 10, ramp: { tag: mobile, to: { lossPercent: 10 }, over: 20, steps: seconds } }
      - { at: 40, partition: [[alpha, bravo], [charlie, delta]] }
      - { at: 50, heal: true }
      - { at: 60, network: { link: alpha-bravo/0, cut: true } }
      - { at: 70, restore: alpha-bravo/0 }
      - { at: 80, flap: { link: charlie-delta/0, period: 2, for: 10 } }`),
    ).toEqual([
      "node bravo's links (out) set bandwidthMbps 2",
      'ramp links of tag mobile over 20 s',
      'partition alpha+bravo | charlie+delta',
      'heal partition',
      'link alpha-bravo/0 cut',
      'restore alpha-bravo/0',
      'flap charlie-delta/0',
    ]);
  });
});

describe('ramps and targets', () => {
  test('linear ramps move continuously, stepped ones by whole seconds, both end on the target', () => {
    expect(rampFraction(2.5, 10, 'linear')).toBe(0.25);
    expect(rampFraction(2.5, 10, 'seconds')).toBe(0.2);
    expect(rampFraction(11, 10, 'linear')).toBe(1);
    const from = { delayMs: 10, bandwidthMbps: 100, lossPercent: 0, jitterMs: 0 };
    const to = { delayMs: 30, bandwidthMbps: 50, lossPercent: 10, jitterMs: 4 };
    expect(conditionsBetween(from, to, 0.5)).toEqual({ delayMs: 20, bandwidthMbps: 75, lossPercent: 5, jitterMs: 2 });
  });

  test('a set splits a round trip over the direction; a scale multiplies what stands now', () => {
    const now = { delayMs: 10, bandwidthMbps: 100, lossPercent: 2, jitterMs: 1 };
    expect(targetOf(now, { set: { latencyMs: 60, lossPercent: 5 } })).toEqual({ delayMs: 30, bandwidthMbps: 100, lossPercent: 5, jitterMs: 1 });
    expect(targetOf(now, { scale: { latencyMs: 3, bandwidthMbps: 0.1, lossPercent: 100 } })).toEqual({
      delayMs: 30,
      bandwidthMbps: 10,
      lossPercent: 100,
      jitterMs: 1,
    });
  });
});

test("a ramp's steps are due from its start: a slow step is reported late and the next ones are not", async () => {
  const fractions: number[] = [];
  const before = Date.now();
  const { startedAt, latenessMs } = await stepOver(0.5, 'linear', async (fraction) => {
    fractions.push(fraction);
    if (fractions.length === 1) await new Promise((resolve) => setTimeout(resolve, 250));
  });
  expect(fractions.at(-1)).toBe(1);
  // The clock the fractions count from: when the ramp began.
  expect(startedAt).toBeGreaterThanOrEqual(before);
  expect(startedAt - before).toBeLessThan(50);
  expect(latenessMs).toHaveLength(fractions.length);
  // The first step (due at 100 ms) took 250 ms; the steps due at 200 and 300 ms ran at once after it.
  expect(latenessMs[0]).toBeGreaterThanOrEqual(250);
  expect(latenessMs.at(-1)).toBeLessThan(100);
});

test('a flap keeps its timeline when cutting and restoring are slow: every cycle flips, none is dropped', async () => {
  // Stands in for a busy emulator: each cut and restore takes 250 ms (a real fleet's flap is in
  // test/netns/link-conditions.test.ts; this pins the schedule, which a busy CI host stretched).
  const calls: string[] = [];
  const slow = (what: string) => async () => {
    calls.push(what);
    await new Promise((resolve) => setTimeout(resolve, 250));
  };
  const net = { link: () => undefined, cut: slow('cut'), restore: slow('restore') } as unknown as FleetNetwork;
  const started = Date.now();
  expect(await flap(net, 'alpha-bravo/0', 1, 3)).toBe(3);
  expect(calls).toEqual(['cut', 'restore', 'cut', 'restore', 'cut', 'restore', 'restore']);
  expect(Date.now() - started).toBeLessThan(3600);
});
