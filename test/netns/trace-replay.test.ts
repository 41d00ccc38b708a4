// Trace replay on a real local fleet: a short trace (6 rows over 3 s) played through the service a
// `replay:` event's activity calls, with the emulator's own per-direction stats read after each
// row's time to show that row's value, and the replay's lateness within what a trace needs.
import { findLink } from '../../core/inventory';
import type { Direction, DirectionConditions } from '../../core/link-conditions';
import { parseTrace, type TraceRow } from '../../core/trace';
import { replayLinkTrace } from '../../operations/network/network-operations';
import { EmulatorClient, type DirectionStats } from '../../infra/local/emulator-client';
import { fleetPaths, readState } from '../../infra/local/state';
import { relayBytesPerPayloadByte } from '../../infra/local/overlay-cost';
import { emulatorSetting } from '../../infra/shaping/emulator-shaper';
import { sleep } from '../../platform/wait';
import { useLocalFleet } from '../support/local-fleet';
import { smallTopology } from '../support/small-topology';

jest.setTimeout(240_000);

const fleet = { kind: 'local' } as const;

const TRACE = `# 6 rows over 3 s, half a second apart, every kind of target and property
t,target,property,value
0,alpha-beta/0,latencyMs,40
0.5,alpha-beta/0:a->b,lossPercent,10
1,alpha-beta/0,bandwidthMbps,20
1.5,node:gamma:out,jitterMs,3
2,alpha-beta/0:a->b,lossPercent,0
3,alpha-beta/0,latencyMs,80
`;

/** What the emulator should report for one direction, given the conditions the trace leaves it in. */
interface Expected {
  link: string;
  direction: Direction;
  conditions: DirectionConditions;
}

const reference = (delayMs: number): DirectionConditions => ({ delayMs, bandwidthMbps: 100, lossPercent: 0, jitterMs: 0 });
const alphaBeta = (ab: Partial<DirectionConditions>, ba: Partial<DirectionConditions> = ab): Expected[] => [
  { link: 'alpha-beta/0', direction: 'ab', conditions: { ...reference(10), ...ab } },
  { link: 'alpha-beta/0', direction: 'ba', conditions: { ...reference(10), ...ba } },
];

/** After each row's time (plus a margin shorter than the half second to the next row): what must hold. */
const CHECKS: { afterS: number; expected: Expected[] }[] = [
  { afterS: 0.25, expected: alphaBeta({ delayMs: 20 }) },
  { afterS: 0.75, expected: alphaBeta({ delayMs: 20, lossPercent: 10 }, { delayMs: 20 }) },
  { afterS: 1.25, expected: alphaBeta({ delayMs: 20, lossPercent: 10, bandwidthMbps: 20 }, { delayMs: 20, bandwidthMbps: 20 }) },
  {
    afterS: 1.75,
    // gamma is b on its one link: what it sends is b -> a.
    expected: [
      { link: 'beta-gamma/0', direction: 'ba', conditions: { ...reference(15), jitterMs: 3 } },
      { link: 'beta-gamma/0', direction: 'ab', conditions: reference(15) },
    ],
  },
  { afterS: 2.25, expected: alphaBeta({ delayMs: 20, lossPercent: 0, bandwidthMbps: 20 }, { delayMs: 20, bandwidthMbps: 20 }) },
];

// alpha-beta/0: 20 ms, 100 Mbit/s; beta-gamma/0: 30 ms; alpha and beta are also joined by type 3.
const inventory = useLocalFleet(smallTopology);
const emulator = new EmulatorClient(fleetPaths.emulatorSocket);

/** The direction's stats and what the emulator should have been told for `expected`, side by side. */
async function compare(expected: Expected): Promise<{ got: DirectionStats; want: ReturnType<typeof emulatorSetting> }> {
  const link = (await emulator.stats()).find((l) => l.id === expected.link)!;
  const cost = { baseRttMs: readState()?.baseRttMs ?? 0, relayBytesPerPayloadByte: relayBytesPerPayloadByte(readState()?.plan.stack) };
  return {
    got: link[expected.direction],
    want: emulatorSetting(findLink(inventory(), expected.link), expected.direction, expected.conditions, cost),
  };
}

async function expectShaped(expected: Expected[], when: string): Promise<void> {
  for (const e of expected) {
    const { got, want } = await compare(e);
    const where = `${when}: ${e.link} ${e.direction}`;
    expect({ where, delayMs: got.delayMs, rateMbps: got.rateMbps, lossPercent: got.lossPercent, jitterMs: got.jitterMs ?? 0 }).toEqual({
      where,
      delayMs: expect.closeTo(want.delayMs!, 1) as unknown,
      rateMbps: want.rateMbps === null ? null : (expect.closeTo(want.rateMbps!, 1) as unknown),
      lossPercent: want.lossPercent,
      jitterMs: want.jitterMs,
    });
  }
}

function rowsOf(text: string): TraceRow[] {
  const parsed = parseTrace(text, 'replay.csv');
  if ('errors' in parsed) throw new Error(parsed.errors.map((e) => e.message).join('\n'));
  return parsed.rows;
}

test('each row of a trace is in the emulator after its time, and rows are applied on time', async () => {
  const rows = rowsOf(TRACE);
  expect(rows).toHaveLength(6);
  const start = Date.now();
  const replay = replayLinkTrace({ fleet, rows, speed: 1, loop: false });
  for (const check of CHECKS) {
    await sleep(Math.max(0, start + check.afterS * 1000 - Date.now()));
    await expectShaped(check.expected, `${check.afterS} s`);
  }
  const report = await replay;
  await expectShaped(alphaBeta({ delayMs: 40, bandwidthMbps: 20 }), 'after the last row');
  expect(report.steps).toBe(6);
  expect(report.completedAt - report.appliedAt).toBeGreaterThanOrEqual(3000);
  expect(report.latenessMs.p99).toBeLessThanOrEqual(50);
  expect(report.latenessMs.p50).toBeGreaterThanOrEqual(0);
});
