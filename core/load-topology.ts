import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { InputError, InputErrors } from './errors';
import type { Topology } from './topology';
import { validateTopology } from './validate-topology';

/** The built-in topologies shipped with the project. */
export const TOPOLOGY_DIR = resolve(__dirname, '..', 'topologies');
const EXTENSIONS = ['.yaml', '.yml', '.json'];

/** Built-in topology names, e.g. `fhc-8dc`. */
export function builtInTopologies(): string[] {
  return readdirSync(TOPOLOGY_DIR)
    .filter((f) => EXTENSIONS.some((e) => f.endsWith(e)) && !f.endsWith('.schema.json'))
    .map((f) => f.replace(/\.(ya?ml|json)$/, ''))
    .sort();
}

/** Resolves a built-in name or a file path (YAML or JSON) to a validated topology. */
export function loadTopology(nameOrFile: string): Topology {
  const file = topologyFile(nameOrFile);
  let value: unknown;
  try {
    value = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InputError(file, `not valid YAML/JSON: ${(err as Error).message}`);
  }
  try {
    return validateTopology(value);
  } catch (err) {
    throw inFile(err, basename(file));
  }
}

/** Adds the file name to each problem, keeping the field a plain path into the file. */
function inFile(err: unknown, file: string): unknown {
  const name = (e: InputError) => new InputError(e.field, `${e.problem} (in ${file})`);
  if (err instanceof InputError) return name(err);
  if (err instanceof InputErrors) return new InputErrors(err.errors.map(name));
  return err;
}

function topologyFile(nameOrFile: string): string {
  if (existsSync(nameOrFile) && EXTENSIONS.some((e) => nameOrFile.endsWith(e))) return nameOrFile;
  for (const ext of EXTENSIONS) {
    const candidate = join(TOPOLOGY_DIR, `${nameOrFile}${ext}`);
    if (existsSync(candidate)) return candidate;
  }
  throw new InputError(
    'topology',
    `"${nameOrFile}" is neither a topology file (.yaml, .yml, .json) nor a built-in topology (${builtInTopologies().join(', ')})`,
  );
}
