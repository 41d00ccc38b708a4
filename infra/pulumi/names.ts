/**
 * Names the clouds see. Pulumi keeps logical names apart per stack, but the clouds do not: two
 * stacks in one OpenStack project would both make `fb-router`, and a VM name is unique in an
 * Azure resource group. Each name carries the stack, and the VM it belongs to where it has one.
 */
export function cloudName(stack: string, ...parts: string[]): string {
  return ['fb', stack, ...parts].join('-');
}

/** Replacing a VM frees its fixed-address ports and its name first: the new VM takes both. */
export const REPLACE_VM_FIRST = { deleteBeforeReplace: true } as const;
