// Every activity the worker registers, by group. Workflows see them only through
// activities/contracts.ts and activities/scenario.ts (types) and workflows/activities.ts (proxies).
import { networkActivities } from './network';
import * as database from './database';
import { resultsActivities } from './results';
import { eventInjector } from './scenario';

export const {
  applyLatencyEpoch, applyBandwidthEpoch, cutLink, restoreLink, resetNetwork, measureRtt, measureBandwidth, readTraffic, overlayRoute,
} = networkActivities;
export { startCluster, addNode, removeNode, killNode, reviveNode, clusterStatus, stopCluster } from './database';
export { flushDatabase, ycsbLoad, ycsbRun, monitorPhase } from './load';
export const { recordRunStart, recordSamples, recordCell, finishRun } = resultsActivities;
export { prepareRun, readClock } from './scenario';
export { acquireFleet, releaseFleet } from './fleet-lease';
export const injectEvent = eventInjector({ ...networkActivities, ...database });
