/**
 * Every event kind a scenario can use, in the order `validate` lists them. Adding a kind is one
 * module in this folder and one line in BUILT_IN below; everything else (schema, plan, workflow,
 * live view, report) looks the kind up here.
 */
import { bandwidthEpoch } from './bandwidth-epoch';
import { clientStart } from './client-start';
import { clientStop } from './client-stop';
import type { EventKindModule } from './event-kind';
import { latencyEpoch } from './latency-epoch';
import { linkCut } from './link-cut';
import { linkRestore } from './link-restore';
import { measureRtt } from './measure-rtt';
import { measureTraffic } from './measure-traffic';
import { moveSite } from './move-site';
import { nodeKill, nodeRevive } from './node-server';
import { networkConditions, rampConditions } from './network-conditions';
import { heal, partition } from './partition';
import { flap } from './flap';
import { traceReplay } from './trace-replay';
import { resizeAdd } from './resize-add';
import { resizeRemove } from './resize-remove';

const BUILT_IN = [
  latencyEpoch,
  bandwidthEpoch,
  resizeAdd,
  resizeRemove,
  nodeKill,
  nodeRevive,
  linkCut,
  linkRestore,
  networkConditions,
  rampConditions,
  partition,
  heal,
  flap,
  traceReplay,
  moveSite,
  clientStart,
  clientStop,
  measureRtt,
  measureTraffic,
] as const;

type BuiltIn = (typeof BUILT_IN)[number];

/** One timed action the engine runs, as planned. */
export type EventAction = ReturnType<BuiltIn['toAction']>;

type Written<M> = M extends EventKindModule<infer Key, infer Item, { kind: string }> & { takesList: infer List }
  ? { [K in Key]?: List extends true ? Item | Item[] : Item }
  : never;
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** The action keys of one event as a scenario writes them (exactly one per event). */
export type WrittenAction = UnionToIntersection<Written<BuiltIn>>;

const byKind = new Map<string, EventKindModule>();
const byKey = new Map<string, EventKindModule>();
/** Bumped by each registration, so schema validators built from the kinds know when to rebuild. */
let generation = 0;

/** Adds a kind; tests use it to add one without touching this file. */
export function registerEventKind(module: EventKindModule): void {
  if (byKind.has(module.kind) || byKey.has(module.key)) throw new Error(`event kind ${module.kind} (key ${module.key}) is registered twice`);
  byKind.set(module.kind, module);
  byKey.set(module.key, module);
  generation++;
}

for (const module of BUILT_IN) registerEventKind(module);

export function eventKinds(): EventKindModule[] {
  return [...byKind.values()];
}

export function registryGeneration(): number {
  return generation;
}

/** The module of a recorded or planned kind; undefined for events the tool records on its own (restarts, faults). */
export function findEventKind(kind: string): EventKindModule | undefined {
  return byKind.get(kind);
}

/** The module of a planned action: every planned action has one. */
export function eventKindOf(action: { kind: string }): EventKindModule {
  const module = byKind.get(action.kind);
  if (!module) throw new Error(`no event kind ${action.kind} is registered (core/event-kinds/registry.ts)`);
  return module;
}
