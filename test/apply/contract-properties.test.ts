// The plan is a contract (issue 13, part 2), against the real local control plane over HTTP: random
// configurations, random out-of-band edits made with the API directly, random configuration edits;
// read, plan, apply through the real pipeline functions (in process, to keep it fast); per
// resource, the fields whose remote value changed are exactly the fields the plan listed (a field
// left to the server may stay unchanged when its default equals the old value), a resource the plan
// leaves alone is not written, and a second plan is clean. Once per server profile.
// More cases: AGENTFORM_PROPERTY_RUNS=200 (per profile); another seed: AGENTFORM_PROPERTY_SEED=n.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlApiClient } from '../../src/api/client.js';
import type { RequestOf, ResponseOf, Rpc, RpcCaller } from '../../src/api/operations.js';
import { applyPlan } from '../../src/apply/executor.js';
import { computePlan } from '../../src/engine/plan.js';
import type { ActualState, DesiredResource, DesiredState, JsonObject, JsonValue, Plan } from '../../src/model/resources.js';
import type { LocalControlPlaneOptions } from '../../src/server/embedded.js';
import { readActualState } from '../../src/state/read.js';
import {
  AGENT_BASE,
  AGENT_FIELDS,
  ENVIRONMENT_FIELDS,
  PROPERTY_SEED,
  applyEdit,
  applyOutOfBand,
  choicesOf,
  contractProblems,
  editedChoices,
  outOfBandEdits,
  propertyRuns,
  specOf,
  type OutOfBand,
} from '../engine/contract-model.js';
import { startServer } from '../server/helpers.js';

/**
 * The server profiles this runs against. `pessimistic` (branch `profile`:
 * LocalControlPlaneOptions.profile) is added to this list once that option exists here.
 */
const PROFILES: ReadonlyArray<'default' | 'pessimistic'> = ['default'];
const RUNS = propertyRuns(40);
const SLUG = 'dev';

const isWrite = (rpc: Rpc) => !/\.(list|get|models|events|pending)$/.test(rpc);

/** The API client, recording which resources were written. */
class Recording implements RpcCaller {
  writes: string[] = [];
  constructor(private readonly client: ControlApiClient) {}
  call<R extends Rpc>(rpc: R, request: RequestOf<R>): Promise<ResponseOf<R>> {
    if (isWrite(rpc)) {
      const body = request as { slug?: string };
      this.writes.push(rpc === 'agents.upsert' ? `agent/${body.slug}` : rpc === 'environments.update' ? `environment/${body.slug}` : rpc);
    }
    return this.client.call(rpc, request);
  }
}

function desiredState(agentName: string, agent: JsonObject, environment: JsonObject): DesiredState {
  const resources: DesiredResource[] = [
    { kind: 'environment', name: SLUG, spec: environment, writeOnly: {}, references: [] },
    { kind: 'agent', name: agentName, spec: agent, writeOnly: {}, references: [] },
  ];
  return { projectDir: '/p', target: { name: SLUG, slug: SLUG, url: 'local', prune: false }, resources };
}

async function planAndApply(caller: Recording, desired: DesiredState): Promise<{ before: ActualState; plan: Plan; after: ActualState; failed: string[] }> {
  const before = await readActualState(caller, SLUG);
  const plan = computePlan(desired, before, { prune: false });
  const result = await applyPlan(plan, desired, before, { caller }, {
    parallelism: 4,
    reread: async (kind) => new Map((await readActualState(caller, SLUG, [kind])).resources.map((resource) => [resource.name, resource.fingerprint])),
    saveToken: async () => undefined,
  });
  const after = await readActualState(caller, SLUG);
  return { before, plan, after, failed: result.failed.map((failure) => `${failure.address}: ${failure.message}`) };
}

/** An environments.update body for out-of-band edits: a removed field is reset with null. */
function environmentPatch(edits: OutOfBand): JsonObject {
  const body: JsonObject = {};
  for (const { path, value } of edits) {
    const keys = path.split('.');
    let target = body;
    for (const key of keys.slice(0, -1)) target = (target[key] ??= {}) as JsonObject;
    target[keys[keys.length - 1]!] = (value ?? null) as JsonValue;
  }
  return body;
}

describe.each(PROFILES)('the plan is a contract (local control plane, %s profile)', (profile) => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let caller: Recording;
  beforeAll(async () => {
    server = await startServer({ profile } as Partial<LocalControlPlaneOptions>);
    caller = new Recording(new ControlApiClient({ baseUrl: server.url, credential: { kind: 'key', token: server.tokens[SLUG] as string } }));
  });
  afterAll(async () => {
    await server?.cleanup();
  });

  it(`what apply changes is what the plan lists; a second plan is clean (${RUNS} cases)`, async () => {
    let counter = 0;
    await fc.assert(
      fc.asyncProperty(
        choicesOf(AGENT_FIELDS),
        choicesOf(ENVIRONMENT_FIELDS),
        outOfBandEdits(AGENT_FIELDS, [{ path: 'policies.toolCalls.byTool.shell', value: fc.constant('allow') }, { path: 'sandbox.network.egress.mode', value: fc.constant('none') }]),
        outOfBandEdits(ENVIRONMENT_FIELDS, [{ path: 'spend.agentMinutesPerMonth', value: fc.integer({ min: 1, max: 99 }) }]),
        editedChoices(AGENT_FIELDS),
        editedChoices(ENVIRONMENT_FIELDS),
        async (agent0, env0, agentEdits, envEdits, agentChange, envChange) => {
          const name = `a${++counter}`;
          const first = await planAndApply(caller, desiredState(name, specOf(agent0, AGENT_BASE), specOf(env0)));
          expect(first.failed).toEqual([]);

          // Out of band, with the API directly.
          const current = await caller.call('agents.get', { slug: name });
          const edited = applyOutOfBand(current.definition as unknown as JsonObject, agentEdits);
          await caller.call('agents.upsert', { slug: name, definition: edited as never });
          if (envEdits.length > 0) await caller.call('environments.update', { slug: SLUG, ...(environmentPatch(envEdits) as object) });
          caller.writes = [];

          const desired = desiredState(name, specOf(applyEdit(agent0, agentChange), AGENT_BASE), specOf(applyEdit(env0, envChange)));
          const { before, plan, after, failed } = await planAndApply(caller, desired);
          expect(failed).toEqual([]);
          const problems: string[] = [];
          for (const change of plan.changes) {
            const wanted = desired.resources.find((resource) => resource.kind === change.kind && resource.name === change.name);
            const was = before.resources.find((resource) => resource.kind === change.kind && resource.name === change.name);
            const now = after.resources.find((resource) => resource.kind === change.kind && resource.name === change.name);
            if (!wanted || !was || !now) continue;
            problems.push(...contractProblems(change.kind, change, was.spec, now.spec, wanted.spec));
            if (change.action === 'no-op' && caller.writes.includes(change.address)) problems.push(`${change.address}: written although the plan left it alone`);
            if (change.action === 'no-op' && was.remote.version !== now.remote.version) problems.push(`${change.address}: a new version although nothing changed`);
          }
          expect(problems).toEqual([]);
          const again = computePlan(desired, after, { prune: false });
          expect(again.changes.filter((change) => change.action !== 'no-op' && change.action !== 'unmanaged')).toEqual([]);
        },
      ),
      { numRuns: RUNS, seed: PROPERTY_SEED },
    );
  }, 300_000);
});
