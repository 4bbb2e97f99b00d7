// Shared by the plan-contract property tests (test/engine/contract-properties.test.ts against a model
// server, test/apply/contract-properties.test.ts against the local control plane): random agent and
// environment configurations, random out-of-band edits, random configuration edits, and the check
// "the fields whose remote value changed are exactly the fields the plan listed".
import fc from 'fast-check';
import type { RpcCaller } from '../../src/api/operations.js';
import { applyPlan } from '../../src/apply/executor.js';
import { canonicalJson } from '../../src/engine/canonical.js';
import { computePlan } from '../../src/engine/plan.js';
import { rulesFor } from '../../src/engine/rules.js';
import type { ActualState, DesiredResource, DesiredState, JsonObject, JsonValue, Plan, ResourceChange, ResourceKind } from '../../src/model/resources.js';
import { readActualState } from '../../src/state/read.js';

/** How many cases each property runs: AGENTFORM_PROPERTY_RUNS=200 runs more. */
export function propertyRuns(fallback: number): number {
  const asked = Number(process.env.AGENTFORM_PROPERTY_RUNS);
  return Number.isInteger(asked) && asked > 0 ? asked : fallback;
}

/** Fixed unless AGENTFORM_PROPERTY_SEED is set, so a failure reproduces. */
export const PROPERTY_SEED = Number(process.env.AGENTFORM_PROPERTY_SEED ?? 20_240_613);

type Field = { path: string; value: fc.Arbitrary<JsonValue>; optional: boolean };

const subset = (items: string[]) => fc.subarray(items) as fc.Arbitrary<JsonValue>;
const oneOf = (...items: JsonValue[]) => fc.constantFrom(...items);
const count = (min: number, max: number) => fc.integer({ min, max }) as fc.Arbitrary<JsonValue>;

/** Agent definition fields the generators set, all valid for agents.upsert and the Agent schema. */
export const AGENT_FIELDS: Field[] = [
  { path: 'model.model', value: oneOf('gpt-4o', 'gpt-4o-mini'), optional: false },
  { path: 'system', value: oneOf('You help.', 'You help.\nBriefly.'), optional: false },
  { path: 'description', value: oneOf('First line.', 'Second line.'), optional: true },
  { path: 'model.reasoning', value: oneOf('none', 'low', 'high'), optional: true },
  {
    path: 'model.fallback.models',
    value: fc.array(fc.record({ provider: fc.constant('openai'), model: oneOf('gpt-4o-mini', 'gpt-4o') }, { requiredKeys: ['provider', 'model'] }), {
      maxLength: 2,
    }) as fc.Arbitrary<JsonValue>,
    optional: true,
  },
  {
    path: 'tools',
    value: fc.array(fc.record({ type: fc.constant('builtin'), name: oneOf('current_time', 'calculator') }), { maxLength: 2 }) as fc.Arbitrary<JsonValue>,
    optional: false,
  },
  { path: 'policies.toolCalls.default', value: oneOf('allow', 'ask', 'deny'), optional: true },
  {
    path: 'policies.toolCalls.byTool',
    value: fc.dictionary(oneOf('shell', 'rm', 'grep') as fc.Arbitrary<string>, oneOf('allow', 'ask', 'deny'), { maxKeys: 3 }) as fc.Arbitrary<JsonValue>,
    optional: true,
  },
  { path: 'policies.toolCalls.timeoutMs', value: count(1_000, 60_000), optional: true },
  { path: 'limits.maxTurns', value: count(1, 200), optional: true },
  { path: 'sandbox.scope', value: oneOf('tree', 'session'), optional: true },
  { path: 'sandbox.tools.deny', value: subset(['rm', 'curl']), optional: true },
  { path: 'sandbox.tools.allow', value: subset(['grep', 'ls']), optional: true },
  { path: 'sandbox.lifecycle.keepSnapshots', value: count(0, 9), optional: true },
  { path: 'identity.required', value: fc.boolean() as fc.Arbitrary<JsonValue>, optional: true },
  { path: 'identity.scopesAllowed', value: subset(['user', 'team']), optional: true },
  { path: 'subagentPolicy.maxDepth', value: count(1, 6), optional: true },
];

/** Environment settings fields (environments.update accepts each; `kind` cannot change, so it is not generated). */
export const ENVIRONMENT_FIELDS: Field[] = [
  { path: 'name', value: oneOf('Staging', 'Stage two'), optional: true },
  { path: 'group', value: oneOf('blue', 'green'), optional: true },
  { path: 'spend.dailyUsd', value: count(1, 500), optional: true },
  { path: 'spend.tokensPerMonth', value: count(1_000, 9_000), optional: true },
  { path: 'retention.sessionEventsDays', value: count(1, 90), optional: true },
  { path: 'retention.spansDays', value: count(1, 30), optional: true },
];

/** One field's state in a configuration: absent (not managed), a value, or null (left to the server). */
export type Choice = { set: false } | { set: true; value: JsonValue };

function choice(field: Field): fc.Arbitrary<Choice> {
  const options: Array<fc.Arbitrary<Choice>> = [field.value.map((value) => ({ set: true as const, value }))];
  if (field.optional) options.push(fc.constant({ set: false as const }), fc.constant({ set: true as const, value: null }));
  return fc.oneof(...options);
}

export type Choices = Record<string, Choice>;

export function choicesOf(fields: Field[]): fc.Arbitrary<Choices> {
  return fc.record(Object.fromEntries(fields.map((field) => [field.path, choice(field)]))) as fc.Arbitrary<Choices>;
}

/** A configuration edit: each field kept as it was, or drawn anew. */
export function editedChoices(fields: Field[]): fc.Arbitrary<Record<string, Choice | 'keep'>> {
  return fc.record(
    Object.fromEntries(
      fields.map((field) => [field.path, fc.oneof({ weight: 3, arbitrary: fc.constant('keep' as const) }, { weight: 1, arbitrary: choice(field) })]),
    ),
  ) as fc.Arbitrary<Record<string, Choice | 'keep'>>;
}

export function applyEdit(before: Choices, edit: Record<string, Choice | 'keep'>): Choices {
  const out: Choices = {};
  for (const [path, next] of Object.entries(edit)) out[path] = next === 'keep' ? before[path]! : next;
  return out;
}

function setPath(target: JsonObject, path: string, value: JsonValue): void {
  const keys = path.split('.');
  let current = target;
  for (const key of keys.slice(0, -1)) {
    const next = current[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) current[key] = {};
    current = current[key] as JsonObject;
  }
  current[keys[keys.length - 1]!] = structuredClone(value);
}

export function deletePath(target: JsonObject, path: string): void {
  const keys = path.split('.');
  let current: JsonValue | undefined = target;
  for (const key of keys.slice(0, -1)) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return;
    current = current[key];
  }
  if (typeof current === 'object' && current !== null && !Array.isArray(current)) delete current[keys[keys.length - 1]!];
}

/** The spec a configuration with these choices gives (base fields first). */
export function specOf(choices: Choices, base: JsonObject = {}): JsonObject {
  const spec = structuredClone(base);
  for (const [path, state] of Object.entries(choices)) if (state.set) setPath(spec, path, state.value);
  return spec;
}

export const AGENT_BASE: JsonObject = { name: 'A', model: { provider: 'openai' } };

/** An out-of-band edit: some fields set (or removed) directly on the server, as a person would. */
export type OutOfBand = Array<{ path: string; value: JsonValue | undefined }>;

export function outOfBandEdits(fields: Field[], extra: Array<{ path: string; value: fc.Arbitrary<JsonValue> }> = []): fc.Arbitrary<OutOfBand> {
  const candidates = [
    ...fields.map((field) => ({ path: field.path, value: field.value, optional: field.optional })),
    ...extra.map((item) => ({ ...item, optional: true })),
  ];
  const edit = fc
    .constantFrom(...candidates)
    .chain((field) => (field.optional ? fc.option(field.value, { nil: undefined }) : field.value).map((value) => ({ path: field.path, value })));
  return fc.array(edit, { maxLength: 3 });
}

export function applyOutOfBand(target: JsonObject, edits: OutOfBand): JsonObject {
  const out = structuredClone(target);
  for (const { path, value } of edits) {
    if (value === undefined) deletePath(out, path);
    else setPath(out, path, value);
  }
  return out;
}

// --- the check ----------------------------------------------------------------------------------

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Absent, null, [] and {} say the same thing ("nothing"): servers may use any of them. */
function isNothing(value: JsonValue | undefined): boolean {
  return value === undefined || value === null || (Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0);
}

/**
 * The paths whose value differs between two remote objects: objects descended into (an object
 * that appears counts as `{}` before), arrays and scalars compared whole, set-like arrays as sets.
 */
export function changedPaths(kind: ResourceKind, before: JsonValue | undefined, after: JsonValue | undefined, path = '', out: string[] = []): string[] {
  const sets = rulesFor(kind).sets ?? new Set<string>();
  if (isObject(before) || isObject(after)) {
    if ((isObject(before) || isNothing(before)) && (isObject(after) || isNothing(after))) {
      const left = isObject(before) ? before : {};
      const right = isObject(after) ? after : {};
      for (const key of new Set([...Object.keys(left), ...Object.keys(right)]))
        changedPaths(kind, left[key], right[key], path === '' ? key : `${path}.${key}`, out);
      return out;
    }
    out.push(path);
    return out;
  }
  if (isNothing(before) && isNothing(after)) return out;
  const pattern = path.replace(/\[\d+\]/g, '[]');
  if (Array.isArray(before) && Array.isArray(after) && sets.has(pattern)) {
    const a = new Set(before.map(canonicalJson));
    const b = new Set(after.map(canonicalJson));
    if (a.size !== b.size || [...a].some((item) => !b.has(item))) out.push(path);
    return out;
  }
  if (canonicalJson(before) !== canonicalJson(after)) out.push(path);
  return out;
}

/** A plan path normalised for comparison: `byTool.x` and `byTool["x.y"]` alike become dotted. */
function segments(path: string): string[] {
  return path
    .replace(/\["((?:[^"\\]|\\.)*)"\]/g, (_, key: string) => `.${JSON.parse(`"${key}"`) as string}`)
    .replace(/\[(\d+)\]/g, '.[$1]')
    .split('.')
    .filter((part) => part !== '');
}

function related(a: string, b: string): boolean {
  const x = segments(a);
  const y = segments(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return false;
  return true;
}

function valueAt(root: JsonValue | undefined, path: string): JsonValue | undefined {
  let current = root;
  for (const part of segments(path)) {
    if (part.startsWith('[')) current = Array.isArray(current) ? current[Number(part.slice(1, -1))] : undefined;
    else current = isObject(current) ? current[part] : undefined;
  }
  return current;
}

/**
 * Problems with "the fields whose remote value changed are the fields the plan listed", or [] when
 * it holds. A changed path is explained by a listed field at, above or below it; or, when it is
 * inside an object the write created or emptied (absent or empty on one side) and the
 * configuration writes into that object (`fallback: {models: []}`), by that write: a server may
 * fill fields into a new object, or leave an empty one out with the unknown fields it adds to it. A listed field must really change, unless it is a reset to the server default
 * (the default may equal the old value) or a write-only value.
 */
export function contractProblems(
  kind: ResourceKind,
  change: ResourceChange,
  before: JsonObject,
  after: JsonObject,
  desired: JsonObject,
  churning: ReadonlySet<string> = new Set(),
): string[] {
  const changed = changedPaths(kind, before, after).filter((path) => !churning.has(path));
  const listed = change.fields.filter((field) => !field.writeOnly).map((field) => field.path);
  const problems: string[] = [];
  for (const path of changed) {
    if (listed.some((field) => related(field, path))) continue;
    const parts = segments(path);
    const createdAncestor = parts.some((_, i) => {
      const ancestor = parts.slice(0, i + 1).join('.');
      const gone = (root: JsonObject) =>
        isNothing(valueAt(root, ancestor)) && !(isObject(valueAt(root, ancestor)) && Object.keys(valueAt(root, ancestor) as JsonObject).length > 0);
      if (!gone(before) && !gone(after)) return false;
      const writtenInto = isObject(valueAt(desired, ancestor)) && change.action !== 'no-op';
      return writtenInto || listed.some((field) => related(field, ancestor) && segments(field).length > i);
    });
    if (!createdAncestor)
      problems.push(
        `${change.address}: ${path} changed (${canonicalJson(valueAt(before, path) ?? null)} → ${canonicalJson(valueAt(after, path) ?? null)}) but the plan did not list it`,
      );
  }
  for (const field of change.fields) {
    if (field.writeOnly || field.resetToDefault) continue;
    if (!changed.some((path) => related(field.path, path))) problems.push(`${change.address}: the plan listed ${field.path} but it did not change`);
  }
  return problems;
}

// --- one round: plan, apply, check ----------------------------------------------------------------

/** An environment's settings and one agent, as a configuration gives them. */
export function contractDesired(slug: string, agentName: string, agent: JsonObject, environment: JsonObject): DesiredState {
  const resources: DesiredResource[] = [
    { kind: 'environment', name: slug, spec: environment, writeOnly: {}, references: [] },
    { kind: 'agent', name: agentName, spec: agent, writeOnly: {}, references: [] },
  ];
  return { projectDir: '/p', target: { name: slug, slug, url: 'local', prune: false }, resources };
}

/** Read, plan and apply through the real engine, writers and executor; then read again. */
export async function planAndApply(
  caller: RpcCaller,
  slug: string,
  desired: DesiredState,
): Promise<{ before: ActualState; plan: Plan; after: ActualState; failed: string[] }> {
  const before = await readActualState(caller, slug);
  const plan = computePlan(desired, before, { prune: false });
  const result = await applyPlan(
    plan,
    desired,
    before,
    { caller },
    {
      parallelism: 4,
      reread: async (kind) => new Map((await readActualState(caller, slug, [kind])).resources.map((resource) => [resource.name, resource])),
      saveToken: async () => undefined,
    },
  );
  const after = await readActualState(caller, slug);
  return { before, plan, after, failed: result.failed.map((failure) => `${failure.address}: ${failure.message}`) };
}

/**
 * Every way a round broke the contract: per resource, and "written although the plan left it alone".
 * `churning`: paths of spec fields the server changes on every read by itself (`model.resolvedAt`),
 * which no plan lists and every read sees changed.
 */
export function roundProblems(
  round: { before: ActualState; plan: Plan; after: ActualState },
  desired: DesiredState,
  written: readonly string[],
  churning: ReadonlySet<string> = new Set(),
): string[] {
  const problems: string[] = [];
  const find = (resources: ReadonlyArray<{ kind: ResourceKind; name: string }>, change: ResourceChange) =>
    resources.find((resource) => resource.kind === change.kind && resource.name === change.name);
  for (const change of round.plan.changes) {
    const wanted = find(desired.resources, change) as DesiredResource | undefined;
    const was = find(round.before.resources, change) as ActualState['resources'][number] | undefined;
    const now = find(round.after.resources, change) as ActualState['resources'][number] | undefined;
    if (!wanted || !was || !now) continue;
    problems.push(...contractProblems(change.kind, change, was.spec, now.spec, wanted.spec, churning));
    if (change.action === 'no-op' && written.includes(change.address)) problems.push(`${change.address}: written although the plan left it alone`);
    if (change.action === 'no-op' && was.remote.version !== now.remote.version) problems.push(`${change.address}: a new version although nothing changed`);
  }
  const again = computePlan(desired, round.after, { prune: false });
  for (const change of again.changes)
    if (change.action !== 'no-op' && change.action !== 'unmanaged') problems.push(`${change.address}: the second plan is not clean (${change.action})`);
  return problems;
}

/**
 * One case: a first configuration, out-of-band edits of the agent and the environment (a few
 * dangerous ones included: a permissive tool policy, open network egress, a spend cap), and a
 * configuration edit.
 */
export const contractCase = fc.record({
  agent0: choicesOf(AGENT_FIELDS),
  env0: choicesOf(ENVIRONMENT_FIELDS),
  agentEdits: outOfBandEdits(AGENT_FIELDS, [
    { path: 'policies.toolCalls.byTool.shell', value: fc.constant('allow') },
    { path: 'sandbox.network.egress.mode', value: fc.constant('none') },
  ]),
  envEdits: outOfBandEdits(ENVIRONMENT_FIELDS, [{ path: 'spend.agentMinutesPerMonth', value: fc.integer({ min: 1, max: 99 }) }]),
  agentChange: editedChoices(AGENT_FIELDS),
  envChange: editedChoices(ENVIRONMENT_FIELDS),
});

/** The first and the edited configuration of a case. */
export function configurationsOf(slug: string, agentName: string, c: ContractCase): [DesiredState, DesiredState] {
  return [
    contractDesired(slug, agentName, specOf(c.agent0, AGENT_BASE), specOf(c.env0)),
    contractDesired(slug, agentName, specOf(applyEdit(c.agent0, c.agentChange), AGENT_BASE), specOf(applyEdit(c.env0, c.envChange))),
  ];
}

export type ContractCase = typeof contractCase extends fc.Arbitrary<infer T> ? T : never;
