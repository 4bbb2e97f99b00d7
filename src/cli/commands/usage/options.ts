// The options of `agentform usage`, shared by its registration (index.ts) and its run module.
import type { OpsOptions } from '../../ops-options.js';

export interface UsageOptions extends OpsOptions {
  from?: string;
  to?: string;
  csv?: boolean;
}
