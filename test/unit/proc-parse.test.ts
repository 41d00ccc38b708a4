import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMeminfo, parseNetDev, parsePidStat, parseProcStat } from '../../platform/proc';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', 'proc', name), 'utf8');

describe('/proc parsers on text recorded from this host', () => {
  it('/proc/stat: busy and idle ticks of all cores, and the core count', () => {
    // cpu  128209 4074 51843 150641 987 0 1185 544 0 0
    expect(parseProcStat(fixture('stat.txt'))).toEqual({
      busy: 128209 + 4074 + 51843 + 0 + 1185 + 544,
      idle: 150641 + 987,
      cores: 2,
    });
  });

  it('/proc/stat without an aggregate line is an error, not zeros', () => {
    expect(() => parseProcStat('cpu0 1 2 3 4\n')).toThrow(/aggregate/);
  });

  it("/proc/<pid>/stat: comm, state, utime, stime, waited-for children's time, starttime, rss", () => {
    expect(parsePidStat(fixture('pid-stat-fb-wan.txt'))).toEqual({
      pid: 14337,
      comm: 'fb-wan',
      state: 'S',
      ppid: 1,
      utime: 66,
      stime: 210,
      childTicks: 0,
      startTime: 164894,
      rssPages: 1426,
    });
    // A shell that waited for a JVM: cutime 212, cstime 31 (fields 16 and 17).
    const shell = fixture('pid-stat-fb-wan.txt').replace(' 66 210 0 0 -11 ', ' 1 2 212 31 20 ');
    expect(parsePidStat(shell)).toMatchObject({ utime: 1, stime: 2, childTicks: 243, startTime: 164894 });
    expect(parsePidStat(fixture('pid-stat-init.txt'))).toMatchObject({ pid: 1, comm: 'process_api', utime: 164, stime: 871, startTime: 24 });
  });

  it('/proc/<pid>/stat: a command name with spaces and parentheses does not shift the fields', () => {
    expect(parsePidStat(fixture('pid-stat-comm-with-spaces.txt'))).toEqual({
      pid: 14642,
      comm: 'npm exec tsx be',
      state: 'S',
      ppid: 13796,
      utime: 37,
      stime: 7,
      childTicks: 0,
      startTime: 165169,
      rssPages: 16655,
    });
    const tricky = fixture('pid-stat-fb-wan.txt').replace('(fb-wan)', '(a) b (c) d)');
    expect(parsePidStat(tricky)).toMatchObject({ comm: 'a) b (c) d', state: 'S', utime: 66, stime: 210, startTime: 164894 });
  });

  it('/proc/meminfo: total and available kB', () => {
    expect(parseMeminfo(fixture('meminfo.txt'))).toEqual({ totalKb: 24684084, availableKb: 23797712 });
    expect(() => parseMeminfo('MemTotal: 1 kB\n')).toThrow(/MemAvailable/);
  });

  it('/proc/<pid>/net/dev: rx and tx bytes per interface, long names touching their numbers included', () => {
    const bytes = parseNetDev(fixture('net-dev-fb-sydney.txt'));
    expect(Object.keys(bytes)).toEqual(['lo', 'fb-wan', 'fbsydney-0', 'fb-overlay']);
    expect(bytes['fbsydney-0']).toEqual({ rxBytes: 1762639, txBytes: 2117295 });
    expect(bytes['fb-wan']).toEqual({ rxBytes: 2231948, txBytes: 2542632 });
    const glued = parseNetDev(
      'h1\nh2\nfbsingapore-0:1762639    5526    0    0    0     0          0         0  2117295    5033    0    0    0     0       0          0\n',
    );
    expect(glued['fbsingapore-0']).toEqual({ rxBytes: 1762639, txBytes: 2117295 });
  });
});
