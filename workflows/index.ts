// The workflows the worker registers (this file is the bundle's entry point).
export { scenarioWorkflow } from './scenario';
export { cellWorkflow } from './cell';
