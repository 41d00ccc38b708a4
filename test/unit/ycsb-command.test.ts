import { validateYcsbSettings, ycsbArgv } from '../../services/ycsb/command';
import type { YcsbSettings } from '../../activities/contracts';
import { InputError, InputErrors } from '../../core/errors';

const settings: YcsbSettings = {
  workload: 'b',
  recordCount: 10_000,
  operationCount: 100_000,
  maxSeconds: 120,
  threads: 10,
  fieldCount: 10,
  fieldLength: 8,
  timeoutMs: 1500,
  retries: 2,
};
const binding = { dbClass: 'fragbench.ycsb.RedisClient', properties: { 'redis.hosts': '198.19.1.1:6379', 'redis.cluster': 'true' } };

/** -p properties of an argv, as a map. */
function props(argv: string[]): Map<string, string> {
  const out = new Map<string, string>();
  argv.forEach((a, i) => {
    if (a === '-p') {
      const [k, ...v] = argv[i + 1].split('=');
      out.set(k, v.join('='));
    }
  });
  return out;
}

describe('YCSB command line', () => {
  it('runs the workload file, record shape, threads and binding properties given', () => {
    const argv = ycsbArgv('run', settings, binding, '/opt/y');
    expect(argv.slice(argv.indexOf('fragbench.ycsb.Main') + 1, argv.indexOf('-s'))).toEqual([
      '--exit-with-caller',
      '-t',
      '-db',
      'fragbench.ycsb.RedisClient',
      '-P',
      '/opt/y/workloads/workloadb',
    ]);
    expect(argv).toContain('/opt/y/target/fragbench-ycsb.jar:/opt/y/target/lib/*');
    const p = props(argv);
    expect(Object.fromEntries(p)).toMatchObject({
      'status.interval': '1',
      recordcount: '10000',
      operationcount: '100000',
      threadcount: '10',
      fieldcount: '10',
      fieldlength: '8',
      maxexecutiontime: '120',
      'redis.hosts': '198.19.1.1:6379',
      'redis.cluster': 'true',
    });
    expect(p.has('target')).toBe(false);
  });

  it('loads without a time limit, and asks for no operation limit when only time bounds a run', () => {
    expect(props(ycsbArgv('load', settings, binding, '/y')).has('maxexecutiontime')).toBe(false);
    expect(ycsbArgv('load', settings, binding, '/y')).toContain('-load');
    const timeOnly = props(ycsbArgv('run', { ...settings, operationCount: 0, target: 500 }, binding, '/y'));
    expect(Number(timeOnly.get('operationcount'))).toBeGreaterThan(1e9);
    expect(timeOnly.get('target')).toBe('500');
  });

  it('names each bad setting and how to fix it', () => {
    expect(() => validateYcsbSettings(settings)).not.toThrow();
    const bad = { ...settings, workload: 'g', threads: 0, fieldLength: 2.5 } as unknown as YcsbSettings;
    let error: unknown;
    try {
      validateYcsbSettings(bad, 'cells[2].ycsb');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputErrors);
    expect((error as InputErrors).errors.map((e) => e.field)).toEqual([
      'cells[2].ycsb.workload',
      'cells[2].ycsb.threads',
      'cells[2].ycsb.fieldLength',
    ]);
    expect(() => validateYcsbSettings({ ...settings, operationCount: 0, maxSeconds: undefined })).toThrow(InputError);
    expect(() => validateYcsbSettings({ ...settings, operationCount: 0, maxSeconds: undefined })).toThrow(/settings.operationCount.*set one of them/);
  });
});
