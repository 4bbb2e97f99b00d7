import type { Scenario } from '../figures.js';
import { builtins } from './builtins.js';
import { coldStart } from './cold-start.js';
import { planAndApply, planLarge, upsertThroughput } from './plan-apply.js';
import { connectionsList, listBurst } from './server-latency.js';
import { peerDeck } from './peer-deck.js';
import { remoteTls } from './remote-tls.js';
import { validateLarge } from './validate.js';

export const SCENARIOS: Scenario[] = [
  coldStart,
  builtins,
  validateLarge,
  planAndApply,
  planLarge,
  upsertThroughput,
  listBurst,
  connectionsList,
  remoteTls,
  peerDeck,
];
