/**
 * The database activities (activities/contracts.ts DatabaseActivities): the cluster operations of
 * services/databases/cluster-operations.ts, heartbeating every second while a long one (install,
 * join, decommission, restart) runs.
 */
import type { DatabaseActivities } from './contracts';
import * as cluster from '../services/databases/cluster-operations';
import { heartbeating } from './heartbeat';

type Input<K extends keyof DatabaseActivities> = Parameters<DatabaseActivities[K]>[0];

export function startCluster(input: Input<'startCluster'>) {
  return heartbeating(() => cluster.startCluster(input));
}
export function addNode(input: Input<'addNode'>) {
  return heartbeating(() => cluster.addNode(input));
}
export function removeNode(input: Input<'removeNode'>) {
  return heartbeating(() => cluster.removeNode(input));
}
/** Quick (one signal): no heartbeat. */
export function killNode(input: Input<'killNode'>) {
  return cluster.killNode(input);
}
export function reviveNode(input: Input<'reviveNode'>) {
  return heartbeating(() => cluster.reviveNode(input));
}
export function clusterStatus(input: Input<'clusterStatus'>) {
  return heartbeating(() => cluster.clusterStatus(input));
}
export function stopCluster(input: Input<'stopCluster'>) {
  return heartbeating(() => cluster.stopCluster(input));
}

// This module implements the contract exactly (checked, not exported: the worker registers what activities/index.ts lists).
({ startCluster, addNode, removeNode, killNode, reviveNode, clusterStatus, stopCluster }) satisfies DatabaseActivities;
