// Per-kind comparison rules: which arrays are sets, which maps are whole values, which fields
// cannot be updated in place. The same rules drive the diff (diff.ts) and the write (merge.ts), so
// that what apply changes is exactly what the plan lists.
import type { ResourceKind } from '../model/resources.js';
import type { DiffRules } from './diff.js';

/** Arrays whose order carries no meaning (patterns, indices as `[]`). Others compare in order. */
const SET_FIELDS: { readonly [K in ResourceKind]: readonly string[] } = {
  organization: [],
  environment: [],
  secret: [],
  provider: [],
  connection: ['hookEvents'],
  grant: [],
  agent: ['sandbox.tools.allow', 'sandbox.tools.deny', 'sandbox.image.secrets', 'identity.scopesAllowed', 'compaction.preserve', 'model.fallback.on'],
  apiKey: ['scopes', 'identityScopes'],
};

/**
 * Maps whose keys are user data (in the kind's schema: an object with `additionalProperties` and
 * no `properties`): a whole value, compared entry by entry over both sides and replaced entirely
 * by the configured map, so `byTool: {}` removes every entry. Other objects merge key by key.
 * test/engine/rules.test.ts checks this list against schemas/.
 */
const WHOLE_VALUE_FIELDS: { readonly [K in ResourceKind]?: readonly string[] } = {
  agent: ['policies.toolCalls.byTool'],
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
      wholeValues: new Set(WHOLE_VALUE_FIELDS[kind] ?? []),
      forcesReplace: new Set(REPLACE_FIELDS[kind]),
    };
    cache.set(kind, rules);
  }
  return rules;
}

export function immutableFieldsOf(kind: ResourceKind): readonly string[] {
  return IMMUTABLE_FIELDS[kind];
}
