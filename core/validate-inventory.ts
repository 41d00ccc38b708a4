import { InputError, throwIfAny } from './errors';
import { checkShape } from './schema/validator';
import type { Inventory } from './inventory';

/** Fields that must never appear in an inventory, at any depth. */
const SECRET_KEYS = /private.?key|preshared|secret|password|credential/i;

/** Checks shape (inventory.schema.json) and meaning (references, uniqueness, no secrets); throws InputError(s). */
export function validateInventory(value: unknown, where = 'inventory'): Inventory {
  const inventory = checkShape<Inventory>('inventory', value, (path) => (path ? `${where}.${path}` : where));
  const errors: InputError[] = [];
  const names = new Set<string>();
  inventory.nodes.forEach((n, i) => {
    if (names.has(n.name)) errors.push(new InputError(`${where}.nodes[${i}].name`, `duplicate node name "${n.name}"`));
    names.add(n.name);
  });
  if (!names.has(inventory.clientNode)) {
    errors.push(new InputError(`${where}.clientNode`, `"${inventory.clientNode}" is not one of the nodes`));
  }
  const ids = new Set<string>();
  inventory.links.forEach((l, i) => {
    for (const end of ['a', 'b'] as const) {
      if (!names.has(l[end])) errors.push(new InputError(`${where}.links[${i}].${end}`, `unknown node "${l[end]}"`));
    }
    if (ids.has(l.id)) errors.push(new InputError(`${where}.links[${i}].id`, `duplicate link id "${l.id}"`));
    ids.add(l.id);
  });
  findSecretKeys(value, where, errors);
  throwIfAny(errors);
  return inventory;
}

function findSecretKeys(value: unknown, path: string, errors: InputError[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => findSecretKeys(v, `${path}[${i}]`, errors));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (SECRET_KEYS.test(k)) errors.push(new InputError(`${path}.${k}`, 'an inventory must not carry secrets'));
      findSecretKeys(v, `${path}.${k}`, errors);
    }
  }
}
