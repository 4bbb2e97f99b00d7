export { computePlan, DEFAULT_MAX_DELETE_SHARE, type PlanOptions } from './plan.js';
export { buildGraph, type ResourceGraph } from './graph.js';
export { diffSpec, jsonEqual, type DiffRules } from './diff.js';
export { canonicalJson, fingerprint } from './canonical.js';
export { PlanError } from './errors.js';
export { rulesFor } from './rules.js';
export { SERVER_DEFAULTS } from './server-defaults.js';
