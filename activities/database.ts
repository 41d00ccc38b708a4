/**
 * The database activities (activities/contracts.ts DatabaseActivities): the cluster operations of
 * services/databases/cluster-operations.ts, heartbeating every second while a long one (install,
 * join, decommission, restart) runs.
 */
import type { DatabaseActivities } from './contracts';
import * as cluster from '../services/databases/cluster-operations';
import { heartbeatingActivity } from './heartbeat';

export const startCluster = heartbeatingActivity(cluster.startCluster);
export const addNode = heartbeatingActivity(cluster.addNode);
export const removeNode = heartbeatingActivity(cluster.removeNode);
/** Quick (one signal): no heartbeat. */
export const killNode = cluster.killNode;
export const reviveNode = heartbeatingActivity(cluster.reviveNode);
export const clusterStatus = heartbeatingActivity(cluster.clusterStatus);
export const stopCluster = heartbeatingActivity(cluster.stopCluster);

// This module implements the contract exactly (checked, not exported: the worker registers what activities/index.ts lists).
({ startCluster, addNode, removeNode, killNode, reviveNode, clusterStatus, stopCluster }) satisfies DatabaseActivities;
