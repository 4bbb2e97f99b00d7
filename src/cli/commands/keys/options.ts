// The options of `agentform keys`, shared by its registration (index.ts) and its run module.
import type { OpsOptions } from '../../ops-options.js';

export interface CreateKeyOptions extends OpsOptions {
  scopes: string;
  expires?: string;
  tokenFile?: string;
  showToken?: boolean;
}
