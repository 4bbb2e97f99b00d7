// The options of `agentform sessions`, shared by its registration (index.ts) and its run module.
import type { OpsOptions } from '../../ops-options.js';

export interface EventsOptions extends OpsOptions {
  type?: string[];
  follow?: boolean;
  interval: string;
}
