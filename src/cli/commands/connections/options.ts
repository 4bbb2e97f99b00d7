// The options of `agentform connections`, shared by its registration (index.ts) and its run module.
import type { OpsOptions } from '../../ops-options.js';

export interface GrantsOptions extends OpsOptions {
  connection?: string;
}
