// The plan is a contract (issue 13, part 2), against a model server: random configurations, random
// out-of-band edits, random configuration edits; plan, apply (the real engine, writers and
// executor, in process); per resource, the fields whose remote value changed are exactly the fields
// the plan listed, a second plan is clean, and a resource the plan leaves alone is not written.
// The model server fills arbitrary defaults (drawn per case), adds unknown fields (nested and at
// the top), reports fields that change on every read (on the record, and nested in the agent
// definition: `model.resolvedAt`, which it owns, ignoring what a request sends), reverses key
// order and set order, may leave null fields out of its answers, may make a version on every
// upsert, and treats environments.update as a patch or as a replace. More cases:
// AGENTFORM_PROPERTY_RUNS=1000.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RequestOf, ResponseOf, Rpc, RpcCaller } from '../../src/api/operations.js';
import type { JsonObject, JsonValue } from '../../src/model/resources.js';
import {
  AGENT_FIELDS,
  ENVIRONMENT_FIELDS,
  PROPERTY_SEED,
  applyOutOfBand,
  configurationsOf,
  contractCase,
  planAndApply,
  propertyRuns,
  roundProblems,
} from './contract-model.js';

interface Profile {
  agentDefaults: Array<{ path: string; value: JsonValue }>;
  environmentDefaults: Array<{ path: string; value: JsonValue }>;
  unknownFields: boolean;
  omitNull: boolean;
  reverse: boolean;
  versionEveryUpsert: boolean;
  environmentUpdate: 'patch' | 'replace';
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valueAt(root: JsonObject, path: string): JsonValue | undefined {
  let current: JsonValue | undefined = root;
  for (const key of path.split('.')) current = isObject(current) ? current[key] : undefined;
  return current;
}

function fill(target: JsonObject, defaults: Profile['agentDefaults']): JsonObject {
  const out = structuredClone(target);
  for (const { path, value } of defaults) {
    if (valueAt(out, path) !== undefined && valueAt(out, path) !== null) continue;
    const keys = path.split('.');
    let current = out;
    for (const key of keys.slice(0, -1)) {
      if (!isObject(current[key])) current[key] = {};
      current = current[key] as JsonObject;
    }
    current[keys[keys.length - 1]!] = structuredClone(value);
  }
  return out;
}

/**
 * What the server answers: unknown fields, reversed keys and sets, null fields left out. (Not empty
 * lists or maps: a server that left `[]` out of its answers while filling a non-empty default for
 * an absent field could not have an unmanaged empty value kept by any client.)
 */
function present(value: JsonValue, profile: Profile, top: boolean): JsonValue {
  if (Array.isArray(value)) {
    const items = value.map((item) => present(item, profile, false));
    return profile.reverse && items.every((item) => typeof item === 'string') ? [...items].reverse() : items;
  }
  if (!isObject(value)) return value;
  const entries = Object.entries(value)
    .filter(([, inner]) => !(profile.omitNull && inner === null))
    .map(([key, inner]) => [key, key === 'byTool' ? inner : present(inner, profile, false)] as const);
  // An unknown object at the top (presented like any other object), an unknown scalar in every object.
  if (profile.unknownFields) entries.push(top ? ['futureField', present({ since: 2 }, profile, false)] : ['serverRevision', 7]);
  return Object.fromEntries(profile.reverse ? entries.reverse() : entries);
}

class ModelServer implements RpcCaller {
  definition: JsonObject | undefined;
  version = 0;
  environment: JsonObject;
  writes: string[] = [];
  private reads = 0;

  constructor(private readonly profile: Profile) {
    this.environment = fill({}, profile.environmentDefaults);
  }

  async call<R extends Rpc>(rpc: R, request: RequestOf<R>): Promise<ResponseOf<R>> {
    return this.answer(rpc, request as unknown as JsonObject) as unknown as ResponseOf<R>;
  }

  private answer(rpc: Rpc, body: JsonObject): unknown {
    const observedAt = `t${++this.reads}`;
    switch (rpc) {
      case 'organizations.get':
        return { id: 'org', name: 'Org' };
      case 'environments.get':
        return { id: 'env', slug: 'staging', ...(present(this.environment, this.profile, true) as JsonObject), observedAt };
      case 'environments.update': {
        this.writes.push('environment/staging');
        const { slug: _slug, ...fields } = body;
        this.environment = this.profile.environmentUpdate === 'replace' ? this.replaced(fields) : this.patched(fields);
        return { id: 'env', slug: 'staging', ...this.environment };
      }
      case 'agents.list': {
        if (!this.definition) return [];
        const definition = present(this.definition, this.profile, true) as JsonObject;
        if (isObject(definition.model)) definition.model = { ...definition.model, [CHURNING]: observedAt };
        return [{ agentId: 'agt', slug: 'a', version: this.version, definition, image: { status: 'ready' }, observedAt }];
      }
      case 'agents.upsert': {
        this.writes.push('agent/a');
        const filled = fill(withoutChurn(body.definition as JsonObject), this.profile.agentDefaults);
        const same = this.definition !== undefined && JSON.stringify(sorted(filled)) === JSON.stringify(sorted(this.definition));
        if (!same || this.profile.versionEveryUpsert) this.version += 1;
        this.definition = filled;
        return { agentId: 'agt', version: this.version, definition: filled };
      }
      case 'secrets.list':
      case 'providers.list':
      case 'connections.list':
      case 'connections.grants.list':
      case 'apiKeys.list':
        return [];
      default:
        throw new Error(`the model server does not offer ${rpc}`);
    }
  }

  /** A patch: absent keeps, null resets to the default (or removes), objects patched key by key. */
  private patched(fields: JsonObject): JsonObject {
    const out = structuredClone(this.environment);
    const reset: string[] = [];
    const visit = (target: JsonObject, patch: JsonObject, prefix: string) => {
      for (const [key, value] of Object.entries(patch)) {
        const path = prefix === '' ? key : `${prefix}.${key}`;
        if (value === null) {
          delete target[key];
          reset.push(path);
        } else if (isObject(value)) {
          if (!isObject(target[key])) target[key] = {};
          visit(target[key] as JsonObject, value, path);
        } else target[key] = structuredClone(value);
      }
    };
    visit(out, fields, '');
    return fill(
      out,
      this.profile.environmentDefaults.filter((d) => reset.some((path) => d.path === path || d.path.startsWith(`${path}.`))),
    );
  }

  /** A replace: the request is the whole settings; what it leaves out (or nulls) gets the default. */
  private replaced(fields: JsonObject): JsonObject {
    const withoutNull = (value: JsonValue): JsonValue => {
      if (!isObject(value)) return value;
      return Object.fromEntries(
        Object.entries(value)
          .filter(([, inner]) => inner !== null)
          .map(([key, inner]) => [key, withoutNull(inner)]),
      );
    };
    return fill(withoutNull(fields) as JsonObject, this.profile.environmentDefaults);
  }
}

/** The server-owned field nested in agent definitions, new on every read. */
const CHURNING = 'resolvedAt';

/** A definition as sent, without the server-owned field: the server ignores what a client sends there. */
function withoutChurn(definition: JsonObject): JsonObject {
  if (!isObject(definition.model)) return definition;
  const { [CHURNING]: _ignored, ...model } = definition.model;
  return { ...definition, model };
}

function sorted(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sorted);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sorted(value[key]!)]),
  );
}

const defaultsFor = (fields: typeof AGENT_FIELDS): fc.Arbitrary<Profile['agentDefaults']> =>
  fc
    .subarray(fields.filter((field) => field.optional))
    .chain((chosen) => fc.tuple(...chosen.map((field) => field.value.map((value) => ({ path: field.path, value })))) as fc.Arbitrary<Profile['agentDefaults']>);

const profileArbitrary: fc.Arbitrary<Profile> = fc.record({
  agentDefaults: defaultsFor(AGENT_FIELDS),
  environmentDefaults: defaultsFor(ENVIRONMENT_FIELDS),
  unknownFields: fc.boolean(),
  omitNull: fc.boolean(),
  reverse: fc.boolean(),
  versionEveryUpsert: fc.boolean(),
  environmentUpdate: fc.constantFrom('patch' as const, 'replace' as const),
});

const RUNS = propertyRuns(500);

describe('the plan is a contract (model server)', () => {
  it(`what apply changes is what the plan lists; a second plan is clean (${RUNS} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(profileArbitrary, contractCase, async (profile, c) => {
        const server = new ModelServer(profile);
        const [initial, desired] = configurationsOf('staging', 'a', c);
        const first = await planAndApply(server, 'staging', initial);
        expect(first.failed).toEqual([]);

        // Out of band, as a person with the API would: an upsert (or update) of the edited object,
        // so the server fills its defaults into what the edit removed.
        server.definition = fill(applyOutOfBand(server.definition!, c.agentEdits), profile.agentDefaults);
        server.version += 1;
        server.environment = fill(applyOutOfBand(server.environment, c.envEdits), profile.environmentDefaults);
        server.writes = [];

        const round = await planAndApply(server, 'staging', desired);
        expect(round.failed).toEqual([]);
        expect(roundProblems(round, desired, server.writes, new Set([`model.${CHURNING}`]))).toEqual([]);
      }),
      { numRuns: RUNS, seed: PROPERTY_SEED },
    );
  }, 120_000);
});
