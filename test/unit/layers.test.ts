/**
 * The house plan (docs/architecture.md, "Layers"), checked on the source: each layer names the
 * layers its files may import, and every relative import of every file under it must land in one
 * of them. Import cycles across the tree are checked by `npm run check:imports`.
 *
 *   core        only core (and the published JSON schemas, which are data)
 *   platform    platform, core, and of packages only node's built-ins
 *   services    services, platform, core; never the Temporal activity context or workflow API
 *   infra       infra, services, platform, core
 *   operations  operations, infra, services, platform, core: the services that drive a running
 *               fleet through infra (shape and cut links, hold and bring up the fleet, supervise
 *               a phase, sample telemetry, plan a run against the fleet that is up)
 *   report      report, services, core, platform (a reader of results); never imported by services,
 *               so what a service computes for a run (cell summaries, the reference cell) is core's
 *   activities  everything below it; never workflows or the entry points. Of report/ only its
 *               writer (REPORT_WRITER): the results activity renders what the results service recorded
 *   workflows   workflows and core; activities only as types (`import type`)
 *   cli, bench  anything below activities, the worker and the workflows they start; activities
 *               only as types (they call the services); bench may also drive the CLI's pieces
 *   worker      anything but cli and bench: it registers the activities and bundles the workflows
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

type Layer = 'core' | 'platform' | 'services' | 'infra' | 'operations' | 'report' | 'activities' | 'workflows' | 'cli' | 'bench' | 'worker';

const BELOW_ACTIVITIES: Layer[] = ['core', 'platform', 'services', 'infra', 'operations', 'report'];
const ALLOWED: Record<Layer, Layer[]> = {
  core: ['core'],
  platform: ['platform', 'core'],
  services: ['services', 'platform', 'core'],
  infra: ['infra', 'services', 'platform', 'core'],
  operations: ['operations', 'infra', 'services', 'platform', 'core'],
  report: ['report', 'services', 'platform', 'core'],
  activities: ['activities', ...BELOW_ACTIVITIES],
  workflows: ['workflows', 'core'],
  cli: ['cli', 'worker', 'workflows', ...BELOW_ACTIVITIES],
  bench: ['bench', 'cli', 'worker', 'workflows', ...BELOW_ACTIVITIES],
  worker: ['worker', 'activities', 'workflows', ...BELOW_ACTIVITIES],
};
/** The one module of report/ the activities may import: they write the report, they compute none of it. */
const REPORT_WRITER = 'report/write-report';
/** Layers that may see the activities' types (their contracts, a heartbeat's shape) but not run them. */
const ACTIVITY_TYPES_ONLY: Layer[] = ['workflows', 'cli', 'bench'];
/** Packages a layer may not import: Temporal's activity context and workflow API stay in their layers. */
const FORBIDDEN_PACKAGES: Partial<Record<Layer, RegExp>> = {
  services: /^@temporalio\/(activity|workflow)$/,
  operations: /^@temporalio\/(activity|workflow)$/,
  infra: /^@temporalio\//,
};

interface Import {
  spec: string;
  typeOnly: boolean;
}

function importsIn(text: string): Import[] {
  const statements = [...text.matchAll(/(?:^|\n)\s*(import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'/g)].map((m) => ({
    spec: m[3],
    typeOnly: Boolean(m[2]),
  }));
  const dynamic = [...text.matchAll(/(?:import|require)\(\s*'([^']+)'\s*\)/g)].map((m) => ({ spec: m[1], typeOnly: false }));
  return [...statements, ...dynamic];
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The layer a repository path belongs to (its top folder), or undefined outside the layers (packages, data). */
function layerOf(relative: string): Layer | undefined {
  const top = relative.split('/')[0];
  return top in ALLOWED ? (top as Layer) : undefined;
}

/** Why `from` may not import `spec`, or undefined when it may. */
function violation(from: string, { spec, typeOnly }: Import): string | undefined {
  const layer = layerOf(from)!;
  if (!spec.startsWith('.')) {
    if (layer === 'platform' && !spec.startsWith('node:')) return 'platform imports only node built-ins of packages';
    return FORBIDDEN_PACKAGES[layer]?.test(spec) ? `${layer} may not import ${spec}` : undefined;
  }
  if (spec.endsWith('.schema.json')) return undefined;
  const target = path
    .relative(ROOT, path.resolve(ROOT, path.dirname(from), spec))
    .split(path.sep)
    .join('/');
  const to = layerOf(target);
  if (to === undefined || to === layer) return undefined;
  if (to === 'activities' && typeOnly && ACTIVITY_TYPES_ONLY.includes(layer)) return undefined;
  if (layer === 'activities' && to === 'report' && target !== REPORT_WRITER)
    return `activities import of report/ only ${REPORT_WRITER} (summaries and references are in core/)`;
  return ALLOWED[layer].includes(to)
    ? undefined
    : `${layer} may not import ${to}${ACTIVITY_TYPES_ONLY.includes(layer) && to === 'activities' ? ' (only `import type`)' : ''}`;
}

function violationsOf(layer: Layer): string[] {
  return filesUnder(path.join(ROOT, layer)).flatMap((file) => {
    const from = path.relative(ROOT, file).split(path.sep).join('/');
    return importsIn(readFileSync(file, 'utf8')).flatMap((imp) => {
      const why = violation(from, imp);
      return why ? [`${from} -> ${imp.spec}: ${why}`] : [];
    });
  });
}

test.each(Object.keys(ALLOWED) as Layer[])('%s imports only what its layer may', (layer) => {
  expect(violationsOf(layer)).toEqual([]);
});

/** Every top-level folder a layer's files import at run time (type-only and schema imports aside). */
function foldersImportedBy(layer: Layer): Set<string> {
  const folders = filesUnder(path.join(ROOT, layer)).flatMap((file) => {
    const from = path.relative(ROOT, file);
    return importsIn(readFileSync(file, 'utf8'))
      .filter(({ spec, typeOnly }) => spec.startsWith('.') && !typeOnly && !spec.endsWith('.schema.json'))
      .map(({ spec }) => path.relative(ROOT, path.resolve(ROOT, path.dirname(from), spec)).split(path.sep)[0]);
  });
  return new Set(folders.filter((top) => top !== layer && top in ALLOWED));
}

test('no two top-level folders import each other', () => {
  const layers = Object.keys(ALLOWED) as Layer[];
  const imports = new Map(layers.map((layer) => [layer, foldersImportedBy(layer)]));
  const mutual = layers.flatMap((a) => [...imports.get(a)!].filter((b) => a < b && imports.get(b as Layer)?.has(a)).map((b) => `${a} <-> ${b}`));
  expect(mutual).toEqual([]);
});

describe('the check itself', () => {
  const check = (from: string, line: string) => importsIn(line).map((imp) => violation(from, imp));

  test('sees an import that leaves core, across lines and in a subfolder', () => {
    expect(check('core/event-kinds/x.ts', "import {\n  a,\n} from '../../activities/contracts';")).toEqual(['core may not import activities']);
  });

  test('lets workflows and the CLI see activity types, not activity code', () => {
    expect(check('workflows/x.ts', "import type { A } from '../activities/contracts';")).toEqual([undefined]);
    expect(check('workflows/x.ts', "import { a } from '../activities/contracts';")).toEqual([
      'workflows may not import activities (only `import type`)',
    ]);
    expect(check('cli/x.ts', "import { acquireFleet } from '../activities/fleet-lease';")).toEqual([
      'cli may not import activities (only `import type`)',
    ]);
    expect(check('workflows/x.ts', "import { x } from '../services/ycsb/command';")).toEqual(['workflows may not import services']);
  });

  test('keeps infra below the operations that drive it, and services below both', () => {
    expect(check('infra/local/x.ts', "import { a } from '../../services/exec/transports';")).toEqual([undefined]);
    expect(check('infra/local/x.ts', "import { a } from '../../operations/network/network-operations';")).toEqual([
      'infra may not import operations',
    ]);
    expect(check('operations/network/x.ts', "import { a } from '../../infra/shaping/fleet-network';")).toEqual([undefined]);
    expect(check('services/ycsb/x.ts', "import { a } from '../../infra/local/state';")).toEqual(['services may not import infra']);
    expect(check('services/ycsb/x.ts', "import { a } from '../../operations/monitor/path-watch';")).toEqual(['services may not import operations']);
    expect(check('infra/local/x.ts', "import { a } from '../../activities/network';")).toEqual(['infra may not import activities']);
  });

  test('keeps the report out of services, and its computations out of the activities', () => {
    expect(check('services/results/x.ts', "import { writeReport } from '../../report/write-report';")).toEqual(['services may not import report']);
    expect(check('services/results/x.ts', "import { summarizeCell } from '../../core/cell-summary';")).toEqual([undefined]);
    expect(check('activities/results.ts', "import { writeReport } from '../report/write-report';")).toEqual([undefined]);
    expect(check('activities/results.ts', "import { buildReport } from '../report/build-report';")).toEqual([
      'activities import of report/ only report/write-report (summaries and references are in core/)',
    ]);
    expect(check('activities/x.ts', "import { cellLabel } from '../report/figures/clients';")).toEqual([
      expect.stringMatching(/^activities import of report\/ only/),
    ]);
  });

  test('keeps Temporal out of services and platform', () => {
    expect(check('services/x/y.ts', "import { Context } from '@temporalio/activity';")).toEqual(['services may not import @temporalio/activity']);
    expect(check('platform/x.ts', "import { a } from 'yaml';")).toEqual(['platform imports only node built-ins of packages']);
    expect(check('platform/x.ts', "import { a } from 'node:fs';")).toEqual([undefined]);
  });
});
