// Every activity the worker registers: exactly those the workflows schedule (through the proxies
// of workflows/activities.ts; test/unit/registered-activities.test.ts compares the two lists).
// The fleet operations a timed event applies (cut a link, kill a member, resize...) are not among
// them: the event injector calls them in-process, inside its own activity. Workflows see these
// only through activities/contracts.ts, activities/scenario.ts and core/ (types).
//
// The convention of every activity module (as in Temporal's TypeScript samples): one module per
// group of what its activities touch, each activity a named exported function returning a promise,
// and one `({ ... }) satisfies <Group>Activities` line checking the module against its contract.
export { startCluster, stopCluster } from './database';
export { applyLatencyEpoch, applyBandwidthEpoch, resetNetwork } from './network';
export { flushDatabase, ycsbLoad, ycsbRun, monitorPhase, checkConsistency } from './load';
export { recordRunStart, recordSamples, recordCell, finishRun } from './results';
export { prepareRun, readClock, injectEvent } from './scenario';
export { acquireFleet, releaseFleet } from './fleet-lease';
export { registeredSearchAttributes } from './visibility';
