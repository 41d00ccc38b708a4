/**
 * Matrix expansion: every combination of the matrix's values is one cell. Known dimensions
 * (database, workload, latencyScale, bandwidthScale) take scalars; any dimension may take objects
 * `{name, ...overrides}` that change the fleet, database, client or YCSB settings of their cells.
 */
import { InputError } from './errors';
import { KNOWN_DIMENSIONS, type CellOverrides, type KnownDimension, type MatrixValue, type ScenarioFile } from './scenario';

export interface Coordinate {
  dimension: string;
  name: string | number;
  overrides: CellOverrides;
  /** Path of the value in the scenario, e.g. `matrix.layout[2]`. */
  path: string;
}

export interface MatrixCell {
  cellId: string;
  coordinates: Coordinate[];
  /** Id of the cell this one is normalized by, when the scenario names a reference. */
  referenceCellId?: string;
}

const DATABASES = ['redis', 'cassandra', 'mongodb', 'mysql', 'riak', 'couchdb'];
const WORKLOADS = ['a', 'b', 'c', 'd', 'e', 'f'];

function isKnown(dimension: string): dimension is KnownDimension {
  return (KNOWN_DIMENSIONS as readonly string[]).includes(dimension);
}

function checkKnownValue(dimension: KnownDimension, name: string | number, path: string, errors: InputError[]): void {
  const bad = (problem: string) => errors.push(new InputError(path, problem));
  if (dimension === 'database' && !DATABASES.includes(String(name))) bad(`must be one of: ${DATABASES.join(', ')}`);
  if (dimension === 'workload' && !WORKLOADS.includes(String(name))) bad(`must be one of: ${WORKLOADS.join(', ')}`);
  if ((dimension === 'latencyScale' || dimension === 'bandwidthScale') && !(typeof name === 'number' && name > 0)) {
    bad('must be a number above 0, e.g. 0.2 for a fifth of the reference value');
  }
}

function toCoordinate(dimension: string, value: MatrixValue, path: string, errors: InputError[]): Coordinate {
  if (typeof value === 'object') {
    const { name, ...overrides } = value;
    if (isKnown(dimension)) checkKnownValue(dimension, name, `${path}.name`, errors);
    return { dimension, name, overrides, path };
  }
  if (isKnown(dimension)) checkKnownValue(dimension, value, path, errors);
  else
    errors.push(
      new InputError(
        path,
        `"${dimension}" is not one of ${KNOWN_DIMENSIONS.join(', ')}: write its values as objects {name, fleet?, database?, client?, ycsb?}`,
      ),
    );
  return { dimension, name: value, overrides: {}, path };
}

function shortValue(c: Coordinate): string {
  const prefix = c.dimension === 'latencyScale' ? 'lsf' : c.dimension === 'bandwidthScale' ? 'bsf' : '';
  return `${prefix}${c.name}`.replace(/[^A-Za-z0-9._]+/g, '-');
}

function coordinateKey(coordinates: Coordinate[]): string {
  return coordinates.map((c) => `${c.dimension}=${c.name}`).join('\u0000');
}

/** The cells of a scenario in run order (reference value first in its dimension), or one cell without a matrix. */
export function expandMatrix(file: ScenarioFile, errors: InputError[]): MatrixCell[] {
  const reference = file.reference ?? {};
  const dimensions = Object.entries(file.matrix ?? {}).map(([dimension, values]) => {
    const coords = values.map((v, i) => toCoordinate(dimension, v, `matrix.${dimension}[${i}]`, errors));
    coords.forEach((c, i) => {
      if (coords.findIndex((o) => o.name === c.name) !== i) errors.push(new InputError(c.path, `duplicate value "${c.name}" in matrix.${dimension}`));
    });
    // Running the reference first lets every later cell be normalized as soon as it finishes.
    const ref = reference[dimension];
    return ref === undefined ? coords : [...coords.filter((c) => c.name === ref), ...coords.filter((c) => c.name !== ref)];
  });
  for (const [dimension, value] of Object.entries(reference)) {
    const values = file.matrix?.[dimension];
    if (!values)
      errors.push(
        new InputError(`reference.${dimension}`, `not a matrix dimension; use one of: ${Object.keys(file.matrix ?? {}).join(', ') || '(no matrix)'}`),
      );
    else if (!values.some((v) => (typeof v === 'object' ? v.name : v) === value)) {
      errors.push(new InputError(`reference.${dimension}`, `${JSON.stringify(value)} is not one of matrix.${dimension}`));
    }
  }

  let combos: Coordinate[][] = [[]];
  for (const coords of dimensions) combos = combos.flatMap((prefix) => coords.map((c) => [...prefix, c]));

  const width = String(combos.length).length;
  const cells: MatrixCell[] = combos.map((coordinates, i) => ({
    cellId: [`c${String(i + 1).padStart(width, '0')}`, ...coordinates.map(shortValue)].join('-').slice(0, 128),
    coordinates,
  }));
  if (Object.keys(reference).length === 0) return cells;

  const byKey = new Map(cells.map((c) => [coordinateKey(c.coordinates), c.cellId]));
  for (const cell of cells) {
    const refCoords = cell.coordinates.map((c) => (c.dimension in reference ? { ...c, name: reference[c.dimension] } : c));
    cell.referenceCellId = byKey.get(coordinateKey(refCoords));
  }
  return cells;
}

/** The cell's coordinates as the run record keeps them: dimension -> value name. */
export function coordinateRecord(cell: MatrixCell): Record<string, string | number> {
  return Object.fromEntries(cell.coordinates.map((c) => [c.dimension, c.name]));
}
