// The arithmetic of one telemetry sample from two readings (synthetic counters, no /proc).
import type { Role } from '../../core/telemetry';
import { telemetrySample, type Reading } from '../../operations/telemetry/sample';

const MB = 1024;
const mem = { totalKb: 24_000 * MB, availableKb: 20_000 * MB };
const before: Reading = {
  at: 1_795_000_000_004,
  bootTicks: 50_000,
  cpu: { busy: 1000, idle: 1000, cores: 2 },
  interfaces: {
    'fb-cl/fbcl-0': { rxBytes: 1000, txBytes: 2000 },
    'fb-alpha/fbalpha-0': { rxBytes: 5000, txBytes: 5000 },
    'host/eth0': { rxBytes: 10, txBytes: 10 },
  },
  links: { 'cl-alpha/0': { rxBytes: 100, txBytes: 200 }, 'alpha-beta/0': { rxBytes: 50, txBytes: 50 } },
};
// One second later: 200 ticks on 2 cores = 100 ticks per core, 150 of them busy.
const after: Reading = {
  at: 1_795_000_001_006,
  bootTicks: 50_100,
  cpu: { busy: 1150, idle: 1050, cores: 2 },
  interfaces: {
    'fb-cl/fbcl-0': { rxBytes: 1500, txBytes: 2600 },
    // Re-created (counters went back): left out rather than negative.
    'fb-alpha/fbalpha-0': { rxBytes: 10, txBytes: 10 },
    'host/eth0': { rxBytes: 110, txBytes: 60 },
    // New since the last reading: no delta yet.
    'fb-beta/fbbeta-0': { rxBytes: 7, txBytes: 7 },
  },
  // The emulator restarted alpha-beta's counters; beta-gamma is new.
  links: { 'cl-alpha/0': { rxBytes: 400, txBytes: 260 }, 'alpha-beta/0': { rxBytes: 5, txBytes: 5 }, 'beta-gamma/0': { rxBytes: 1, txBytes: 1 } },
};
const ticks = (entries: [Role, number][]) => new Map<Role, number>(entries);

describe('telemetry sample', () => {
  const sample = telemetrySample(
    before,
    after,
    ticks([
      ['ycsb:cl', 80],
      ['wireguard', 30],
    ]),
    mem,
  );

  it('host busy and idle as % of all cores; roles as % of one core; other is the rest of the busy time', () => {
    expect(sample).toMatchObject({ hostBusyPercent: 75, hostIdlePercent: 25, cores: 2, roleMaxPercent: 200 });
    expect(sample.roles).toEqual({ 'ycsb:cl': 80, wireguard: 30, other: 40 });
  });

  it('time is the whole second it ends; the interval is what the readings span', () => {
    expect(sample.time).toBe(1_795_000_001_000);
    expect(sample.intervalMs).toBe(1002);
  });

  it('memory in MB: used is total less available', () => {
    expect(sample).toMatchObject({ memUsedMb: 4000, memAvailableMb: 20_000 });
  });

  it('bytes per interface and per link are deltas; reset or new counters are left out', () => {
    expect(sample.interfaces).toEqual({ 'fb-cl/fbcl-0': { rxBytes: 500, txBytes: 600 }, 'host/eth0': { rxBytes: 100, txBytes: 50 } });
    expect(sample.links).toEqual({ 'cl-alpha/0': { rxBytes: 300, txBytes: 60 } });
  });

  it("other never goes below zero when the process ticks run a little ahead of the host's", () => {
    expect(telemetrySample(before, after, ticks([['db:alpha', 160]]), mem).roles).toEqual({ 'db:alpha': 160, other: 0 });
  });
});
