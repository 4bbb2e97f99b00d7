// A lost agents.upsert answer on a server where EVERY upsert makes a version (the API allows it):
// the retry reads the agent back and sends the upsert again only when the first attempt did not
// take effect. Real client, real writer, a scripted server with a version store.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyPlan, type ApplyOptions } from '../../src/apply/executor.js';
import type { RpcCaller } from '../../src/api/operations.js';
import { remoteFingerprint } from '../../src/engine/remote-fingerprint.js';
import type { ActualResource, DesiredState, JsonObject, Plan, ResourceChange } from '../../src/model/resources.js';
import { apiError, drop, ok, startRecordingServer, type Answer, type RecordingServer } from '../helpers/recording-server.js';
import { testClient } from '../api/support.js';

let server: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer();
});
afterEach(async () => {
  await server.close();
});

interface Version {
  agentId: string;
  version: number;
  definition: Record<string, unknown>;
}

/** Every upsert is a new version, with defaults filled in (description, model.reasoning). */
function versioningAgent(existing: Array<Record<string, unknown>>, upsertScript: Array<'act-then-drop' | '503-before-acting' | 'act'>): Version[] {
  const versions: Version[] = existing.map((definition, index) => ({ agentId: 'agt_1', version: index + 1, definition }));
  server.on('/v1/agents/upsert', (request, index): Answer => {
    const step = upsertScript[index] ?? 'act';
    if (step === '503-before-acting') return apiError(503, 'unavailable', 'try later');
    const sent = (request.body as { definition: { model?: Record<string, unknown> } }).definition;
    const filled = { description: '', ...sent, model: { reasoning: 'none', ...sent.model } };
    const version = { agentId: 'agt_1', version: versions.length + 1, definition: filled };
    versions.push(version);
    return step === 'act-then-drop' ? drop : ok(version);
  });
  server.on('/v1/agents/get', () =>
    versions.length === 0 ? apiError(404, 'not_found', 'no agent bot') : ok({ slug: 'bot', ...versions[versions.length - 1] }),
  );
  return versions;
}

const spec = (maxTurns: number, extra: Record<string, unknown> = {}) => ({
  name: 'bot',
  model: { provider: 'p', model: 'm' },
  system: 's',
  tools: [{ type: 'builtin', name: 'current_time' }],
  policies: {},
  limits: { maxTurns },
  ...extra,
});

function desired(specValue: Record<string, unknown>): DesiredState {
  return {
    projectDir: '/nowhere',
    target: { name: 'dev', slug: 'dev', url: 'x', prune: false },
    resources: [{ kind: 'agent', name: 'bot', spec: specValue as never, writeOnly: {}, references: [] }],
  };
}

/** The agent as the plan read it at `version` (undefined: it does not exist). */
function remoteAt(version: number | undefined, definition: JsonObject = {}): ActualResource | undefined {
  if (version === undefined) return undefined;
  const found = { kind: 'agent' as const, name: 'bot', id: 'agt_1', spec: definition, remote: { version } };
  return { ...found, fingerprint: remoteFingerprint(found) };
}

function planFor(action: ResourceChange['action'], remote: ActualResource | undefined, wanted: DesiredState): Plan {
  const fingerprint = remote && action === 'update' ? { remoteFingerprint: remoteFingerprint(remote, wanted.resources[0]!.spec) } : {};
  const change: ResourceChange = { address: 'agent/bot', kind: 'agent', name: 'bot', action, fields: [], dependsOn: [], ...fingerprint };
  return {
    formatVersion: 1,
    environment: 'dev',
    changes: [change],
    order: [change.address],
    summary: { add: 0, change: 0, adopt: 0, replace: 0, destroy: 0, unmanaged: 0 },
    warnings: [],
  };
}

/** Plan and apply of `wanted` against the agent at `version`, re-read unchanged before the write. */
function applyAgainst(version: number | undefined, action: ResourceChange['action'], wanted: DesiredState, caller: RpcCaller, definition?: JsonObject) {
  const remote = remoteAt(version, definition);
  const actual = { environmentSlug: 'dev', resources: remote ? [remote] : [], missingOperations: [] };
  const options: ApplyOptions = { parallelism: 1, reread: async () => new Map(remote ? [['bot', remote]] : []), saveToken: async () => undefined };
  return applyPlan(planFor(action, remote, wanted), wanted, actual, { caller }, options);
}

describe('a lost agents.upsert answer, on a server where every upsert makes a version', () => {
  it.each([
    ['update: the lost attempt made version 2', 'update' as const, [spec(10)], ['act-then-drop' as const], 2, 1, 'version 2'],
    ['create: the lost attempt made version 1', 'create' as const, [], ['act-then-drop' as const], 1, 1, 'version 1'],
    ['update: 503 before acting, so it is sent again', 'update' as const, [spec(10)], ['503-before-acting' as const], 2, 2, 'version 2'],
  ])('%s', async (_name, action, existing, script, expectedVersions, expectedUpserts, note) => {
    const versions = versioningAgent(existing, script);
    const { client } = testClient(server.url);
    const result = await applyAgainst(existing.length || undefined, action, desired(spec(20)), client);
    await client.close();
    expect(result.failed).toEqual([]);
    expect(result.done[0]?.note).toBe(note);
    expect(versions).toHaveLength(expectedVersions);
    expect(server.requestsTo('/v1/agents/upsert')).toHaveLength(expectedUpserts);
    expect(server.requestsTo('/v1/agents/get')).toHaveLength(1);
  });

  it('a field reset with null is not sent, so the unchanged old version is not taken for the lost upsert', async () => {
    // Version 1 has description "old"; the configuration resets it (null: not sent). The first
    // attempt fails before acting; the read-back sees version 1, which holds every sent field, but
    // it is the version the plan saw: the upsert must be sent again.
    const versions = versioningAgent([{ ...spec(20), description: 'old', model: { provider: 'p', model: 'm', reasoning: 'none' } }], ['503-before-acting']);
    const { client } = testClient(server.url);
    const result = await applyAgainst(1, 'update', desired(spec(20, { description: null })), client);
    await client.close();
    expect(result.failed).toEqual([]);
    expect(versions).toHaveLength(2);
    expect(server.requestsTo('/v1/agents/upsert')).toHaveLength(2);
  });

  // Issue 44: the definition is sent back with a server-owned field as read (model.resolvedAt),
  // which the read-back finds with a newer value: compared, it made every lost upsert look unsent.
  it('a definition field the server changes on every read does not hide the applied upsert', async () => {
    const versions = versioningAgent([spec(10)], ['act-then-drop']);
    let reads = 0;
    server.on('/v1/agents/get', () => {
      const latest = versions[versions.length - 1]!;
      const model = { ...(latest.definition.model as object), resolvedAt: `t${++reads}` };
      return ok({ slug: 'bot', ...latest, definition: { ...latest.definition, model } });
    });
    const { client } = testClient(server.url);
    const result = await applyAgainst(1, 'update', desired(spec(20)), client, { ...spec(10), model: { provider: 'p', model: 'm', resolvedAt: 't0' } });
    await client.close();
    expect(result.failed).toEqual([]);
    expect((server.requestsTo('/v1/agents/upsert')[0]!.body as { definition: { model: object } }).definition.model).toMatchObject({ resolvedAt: 't0' });
    expect(server.requestsTo('/v1/agents/upsert')).toHaveLength(1);
    expect(versions).toHaveLength(2);
  });

  it('when the read-back itself fails, the outcome is reported unknown instead of guessed', async () => {
    versioningAgent([spec(10)], ['act-then-drop']);
    server.on('/v1/agents/get', apiError(403, 'permission_denied', 'no read scope'));
    const { client } = testClient(server.url);
    const result = await applyAgainst(1, 'update', desired(spec(20)), client);
    await client.close();
    expect(result.failed[0]?.code).toBe('unknown_outcome');
    expect(server.requestsTo('/v1/agents/upsert')).toHaveLength(1);
  });
});
