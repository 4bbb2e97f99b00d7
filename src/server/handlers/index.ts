// Every operation of src/api/operations.ts mapped to its handler; the type makes a missing one a
// compile error.
import type { Rpc } from '../../api/operations.js';
import { agents } from './agents.js';
import { apiKeys } from './apiKeys.js';
import { connections } from './connections.js';
import { environments } from './environments.js';
import { grants } from './grants.js';
import { hooks } from './hooks.js';
import { organizations } from './organizations.js';
import { providers } from './providers.js';
import { secrets } from './secrets.js';
import { sessions } from './sessions.js';
import type { Handlers } from './types.js';
import { usage } from './usage.js';

export const HANDLERS: Handlers<Rpc> = {
  ...apiKeys,
  ...agents,
  ...environments,
  ...organizations,
  ...connections,
  ...grants,
  ...hooks,
  ...sessions,
  ...providers,
  ...secrets,
  ...usage,
};
