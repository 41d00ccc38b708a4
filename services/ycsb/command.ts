/** The YCSB client's command line: JVM, classpath, phase, workload, record shape, binding. */
import path from 'node:path';
import type { ExecTarget } from '../../core/inventory';
import type { YcsbBinding } from '../../core/database';
import type { YcsbSettings, Workload } from '../../core/ycsb';
import { InputError, throwIfAny } from '../../core/errors';

export type YcsbPhase = 'load' | 'run';

const WORKLOADS: readonly Workload[] = ['a', 'b', 'c', 'd', 'e', 'f'];

/**
 * Where the built ycsb/ module (target/ and workloads/) is on the client node: this checkout for
 * the local fleet (namespaces share this host's files), FRAGBENCH_YCSB_HOME or /opt/fragbench/ycsb
 * on a VM.
 */
export function ycsbHome(target: ExecTarget): string {
  if (target.transport === 'netns') return path.resolve(__dirname, '../../ycsb');
  return process.env.FRAGBENCH_YCSB_HOME ?? '/opt/fragbench/ycsb';
}

/**
 * JVM flags for a small client host: a capped heap and the serial collector (no GC threads
 * competing with the database for 2 cores); UTC and an English locale so status lines parse.
 */
const JVM_FLAGS = [
  '-Xmx512m',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-XX:CICompilerCount=1',
  '-Xss512k',
  '-XX:-UsePerfData',
  '-Duser.timezone=UTC',
  '-Duser.language=en',
  '-Duser.country=US',
];

/**
 * YCSB 0.17 takes operationcount=0 as zero threads, not as "no limit": a run bounded only by
 * maxSeconds asks for the most operations YCSB can count instead.
 */
const UNLIMITED_OPERATIONS = 2 ** 31 - 1;

export function validateYcsbSettings(settings: YcsbSettings, where = 'settings'): void {
  const errors: InputError[] = [];
  const wholeAtLeast = (field: keyof YcsbSettings, min: number, optional = false) => {
    const value = settings[field];
    if (optional && value === undefined) return;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
      errors.push(new InputError(`${where}.${field}`, `must be a whole number >= ${min}, got ${JSON.stringify(value)}`));
    }
  };
  if (!WORKLOADS.includes(settings.workload)) {
    errors.push(new InputError(`${where}.workload`, `must be one of ${WORKLOADS.join(', ')}, got ${JSON.stringify(settings.workload)}`));
  }
  wholeAtLeast('recordCount', 1);
  wholeAtLeast('operationCount', 0);
  wholeAtLeast('threads', 1);
  wholeAtLeast('fieldCount', 1);
  wholeAtLeast('fieldLength', 1);
  wholeAtLeast('timeoutMs', 1);
  wholeAtLeast('retries', 0);
  wholeAtLeast('maxSeconds', 1, true);
  wholeAtLeast('target', 1, true);
  if (settings.check !== undefined && typeof settings.check !== 'boolean') {
    errors.push(new InputError(`${where}.check`, `must be true or false, got ${JSON.stringify(settings.check)}`));
  }
  if (settings.operationCount === 0 && settings.maxSeconds === undefined) {
    errors.push(new InputError(`${where}.operationCount`, 'is 0 (unlimited) and maxSeconds is not set: the run would never end; set one of them'));
  }
  throwIfAny(errors);
}

/** `java` with the client's JVM flags and classpath, running `mainClass` of ycsb/ on the client node. */
export function clientJavaArgv(home: string, mainClass: string): string[] {
  return ['java', ...JVM_FLAGS, '-cp', `${home}/target/fragbench-ycsb.jar:${home}/target/lib/*`, mainClass];
}

/** Where a checked run's client writes its history, and the id its values carry (see ycsb/.../CheckedDB.java). */
export interface HistoryTarget {
  /** A file on the client node. */
  file: string;
  client: string;
}

/** The binding with the consistency check around it: the same properties, and CheckedDB's own. */
export function checkedBinding(binding: YcsbBinding, history: HistoryTarget): YcsbBinding {
  return {
    dbClass: 'fragbench.ycsb.CheckedDB',
    properties: {
      ...binding.properties,
      'fragbench.check.db': binding.dbClass,
      'fragbench.check.history': history.file,
      'fragbench.check.client': history.client,
    },
  };
}

/**
 * argv for the client node: `java ... fragbench.ycsb.Main -load|-t ...`. With `exitWithCaller`
 * (the runner's way) the client exits when its stdin closes, so the caller must hold it open.
 */
export function ycsbArgv(phase: YcsbPhase, settings: YcsbSettings, binding: YcsbBinding, home: string, exitWithCaller = true): string[] {
  const props: Record<string, string | number | undefined> = {
    'status.interval': 1,
    measurementtype: 'hdrhistogram',
    'hdrhistogram.percentiles': '95,99',
    exporter: 'site.ycsb.measurements.exporter.TextMeasurementsExporter',
    recordcount: settings.recordCount,
    operationcount: settings.operationCount === 0 ? UNLIMITED_OPERATIONS : settings.operationCount,
    threadcount: settings.threads,
    fieldcount: settings.fieldCount,
    fieldlength: settings.fieldLength,
    target: settings.target,
    // The load phase inserts every record: a time limit there would leave a partial data set.
    maxexecutiontime: phase === 'run' ? settings.maxSeconds : undefined,
    ...binding.properties,
  };
  const argv = [
    ...clientJavaArgv(home, 'fragbench.ycsb.Main'),
    // A crashed worker leaves no client behind: its end of the client's stdin closes.
    ...(exitWithCaller ? ['--exit-with-caller'] : []),
    phase === 'load' ? '-load' : '-t',
    '-db',
    binding.dbClass,
    '-P',
    `${home}/workloads/workload${settings.workload}`,
    '-s',
  ];
  return [...argv, ...propertyArgs(props)];
}

/** `-p name=value` for each property that has a value. */
function propertyArgs(props: Record<string, string | number | undefined>): string[] {
  return Object.entries(props).flatMap(([key, value]) => (value === undefined ? [] : ['-p', `${key}=${value}`]));
}

/**
 * argv of the final read-back (ycsb/.../ReadBack.java): reads the keys given on its stdin with
 * `threads` threads through the binding, and prints each read as a history record.
 */
export function readBackArgv(binding: YcsbBinding, home: string, threads: number): string[] {
  return [
    ...clientJavaArgv(home, 'fragbench.ycsb.ReadBack'),
    '-db',
    binding.dbClass,
    '-threads',
    String(threads),
    ...propertyArgs(binding.properties),
  ];
}
