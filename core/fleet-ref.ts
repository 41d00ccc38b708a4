/**
 * How a workflow names the fleet it runs on. Activities resolve it to an Inventory, so the
 * inventory itself does not have to travel through workflow history with every activity call.
 */
export type FleetRef =
  /** The local emulated fleet that `fragbench fleet up` built on this host. */
  | { kind: 'local' }
  /** An inventory JSON file (e.g. exported from a Pulumi stack). */
  | { kind: 'file'; path: string }
  /** A Pulumi stack's `inventory` output, read with `pulumi stack output --json`. */
  | { kind: 'pulumi'; stack: string; cwd?: string };
