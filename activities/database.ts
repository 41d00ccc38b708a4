/**
 * The database activities (activities/contracts.ts DatabaseActivities): the cluster operations of
 * services/databases/cluster-operations.ts, heartbeating every second while a long one (install,
 * join, decommission, restart) runs.
 */
import type { DatabaseActivities } from './contracts';
import * as cluster from '../services/databases/cluster-operations';
import { heartbeating } from './heartbeat';

type Input<K extends keyof DatabaseActivities> = Parameters<DatabaseActivities[K]>[0];

export const startCluster = (input: Input<'startCluster'>) => heartbeating(() => cluster.startCluster(input));
export const addNode = (input: Input<'addNode'>) => heartbeating(() => cluster.addNode(input));
export const removeNode = (input: Input<'removeNode'>) => heartbeating(() => cluster.removeNode(input));
/** Quick (one signal): no heartbeat. */
export const killNode = (input: Input<'killNode'>) => cluster.killNode(input);
export const reviveNode = (input: Input<'reviveNode'>) => heartbeating(() => cluster.reviveNode(input));
export const clusterStatus = (input: Input<'clusterStatus'>) => heartbeating(() => cluster.clusterStatus(input));
export const stopCluster = (input: Input<'stopCluster'>) => heartbeating(() => cluster.stopCluster(input));

// This module implements the contract exactly (checked, not exported: the worker registers every export).
({ startCluster, addNode, removeNode, killNode, reviveNode, clusterStatus, stopCluster }) satisfies DatabaseActivities;
