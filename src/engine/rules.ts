// Per-kind comparison rules: which arrays are sets, which fields cannot be updated in place.
import type { ResourceKind } from '../model/resources.js';
import type { DiffRules } from './diff.js';
import { SERVER_DEFAULTS } from './server-defaults.js';

/** Arrays whose order carries no meaning (patterns, indices as `[]`). Others compare in order. */
const SET_FIELDS: { readonly [K in ResourceKind]: readonly string[] } = {
  organization: [],
  environment: [],
  secret: [],
  provider: [],
  connection: ['hookEvents'],
  grant: [],
  agent: [
    'sandbox.tools.allow',
    'sandbox.tools.deny',
    'sandbox.image.secrets',
    'identity.scopesAllowed',
    'compaction.preserve',
    'model.fallback.on',
  ],
  apiKey: ['scopes', 'identityScopes'],
};

/** There is no apiKeys.update: any change to a key is a new key (the old one is revoked after). */
const REPLACE_FIELDS: { readonly [K in ResourceKind]: readonly string[] } = {
  organization: [],
  environment: [],
  secret: [],
  provider: [],
  connection: [],
  grant: [],
  agent: [],
  apiKey: ['scopes', 'identityScopes', 'spend', 'expiresAt'],
};

/** Fields that can neither be updated nor replaced (replacing would destroy the environment). */
const IMMUTABLE_FIELDS: { readonly [K in ResourceKind]: readonly string[] } = {
  organization: [],
  environment: ['kind'],
  secret: [],
  provider: [],
  connection: [],
  grant: [],
  agent: [],
  apiKey: [],
};

const cache = new Map<ResourceKind, DiffRules>();

export function rulesFor(kind: ResourceKind): DiffRules {
  let rules = cache.get(kind);
  if (!rules) {
    rules = {
      sets: new Set(SET_FIELDS[kind]),
      defaults: SERVER_DEFAULTS[kind],
      forcesReplace: new Set(REPLACE_FIELDS[kind]),
    };
    cache.set(kind, rules);
  }
  return rules;
}

export function immutableFieldsOf(kind: ResourceKind): readonly string[] {
  return IMMUTABLE_FIELDS[kind];
}
