// The options of `agentform hooks`, shared by its registration (index.ts) and its run module.
import type { OpsOptions } from '../../ops-options.js';

export interface RedeliverOptions extends OpsOptions {
  all?: boolean;
  maxCalls: string;
}
