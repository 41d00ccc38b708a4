// Every activity the worker registers: exactly those the workflows schedule (through the proxies
// of workflows/activities.ts; test/unit/registered-activities.test.ts compares the two lists).
// The fleet operations a timed event applies (cut a link, kill a member, resize...) are not among
// them: the event injector calls them in-process, inside its own activity. Workflows see these
// only through activities/contracts.ts, activities/scenario.ts and core/ (types).
import { networkActivities } from './network';
import * as database from './database';
import { resultsActivities } from './results';
import { eventInjector } from './scenario';

export const { applyLatencyEpoch, applyBandwidthEpoch, resetNetwork } = networkActivities;
export { startCluster, stopCluster } from './database';
export { flushDatabase, ycsbLoad, ycsbRun, monitorPhase, checkConsistency } from './load';
export const { recordRunStart, recordSamples, recordCell, finishRun } = resultsActivities;
export { prepareRun, readClock } from './scenario';
export { acquireFleet, releaseFleet } from './fleet-lease';
export const injectEvent = eventInjector({ ...networkActivities, ...database });
