// The exporter end to end without a server: live state → files → validateProject (0 problems) →
// desiredStateFor + computePlan against the same live state → no changes.
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { desiredStateFor, loadProject, validateProject } from '../../src/config/index.js';
import { computePlan } from '../../src/engine/plan.js';
import { specSchemas } from '../../src/config/schemas.js';
import { exportEnvironment, type ExportResult, type ExportSchemas } from '../../src/export/index.js';
import type { ActualState } from '../../src/model/resources.js';
import { DEFAULTS, fillDefaults } from '../../src/server/defaults.js';
import {
  normalizeAgent,
  normalizeApiKeys,
  normalizeConnection,
  normalizeEnvironment,
  normalizeGrant,
  normalizeOrganization,
  normalizeProvider,
  normalizeSecret,
} from '../../src/state/normalize.js';

const SYSTEM = 'You answer support questions.\nNever reveal ${internal} notes.\n';

function liveState(): ActualState {
  const agent = (slug: string, definition: object, extra: object = {}) =>
    normalizeAgent({ agentId: `ag_${slug}`, slug, version: 3, definition: fillDefaults(definition, DEFAULTS.agentDefinition) as never, ...extra });
  return {
    environmentSlug: 'staging',
    missingOperations: [],
    resources: [
      normalizeOrganization({ id: 'org_1', slug: 'acme', name: 'Acme' }),
      normalizeEnvironment(fillDefaults({ id: 'env_s', slug: 'staging', name: 'Staging', spend: { dailyUsd: 50 } }, DEFAULTS.environment)),
      normalizeSecret({ id: 'sec_1', name: 'npm-token', updatedAt: '2026-01-01T00:00:00Z' }),
      normalizeProvider(fillDefaults({ id: 'prov_1', name: 'openai', type: 'openai', hasSecret: true }, DEFAULTS.provider)),
      normalizeProvider(
        fillDefaults({ id: 'prov_2', name: 'local-llm', type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', hasSecret: false }, DEFAULTS.provider),
      ),
      normalizeConnection(
        fillDefaults(
          { id: 'con_1', name: 'crm', url: 'https://crm.example.test/mcp', auth: { type: 'svc-signed' }, hookEvents: ['session.started'] },
          DEFAULTS.connection,
        ),
      ),
      normalizeGrant({ id: 'gr_1', connectionId: 'con_1', connection: 'crm', identity: { scope: 'user', id: 'alice' } }, new Map())!,
      normalizeGrant({ id: 'gr_2', connectionId: 'con_1', connection: 'crm', identity: { scope: 'team', id: 'alice' } }, new Map())!,
      agent(
        'support',
        {
          name: 'support',
          description: 'Costs ${var:price}',
          // serverRevision and futureField: fields a newer server reports that agentform does not know.
          model: { provider: 'openai', model: 'gpt-4o', fallback: { models: [{ provider: 'local-llm', model: 'llama' }] }, serverRevision: 7 },
          system: SYSTEM,
          tools: [{ type: 'builtin', name: 'current_time' }],
          policies: { toolCalls: { hook: { connection: 'crm' } } },
          limits: { maxTurns: 20 },
          subagents: [{ kind: 'agent', name: 'research', agent: 'researcher', version: 2 }],
          sandbox: { image: { secrets: ['npm-token'] } },
          futureField: { since: 2 },
        },
        { promotedFrom: { environmentId: 'env_d', agentId: 'ag_x', version: 7 } },
      ),
      agent('researcher', {
        name: 'Researcher',
        model: { provider: 'openai', model: 'gpt-4o-mini' },
        system: 'Look things up.',
        tools: [],
        policies: {},
        limits: {},
      }),
      ...normalizeApiKeys([
        fillDefaults({ id: 'key_ci', name: 'ci', prefix: 'svc_staging_ab', scopes: ['read', 'control'], createdAt: '2026-01-01T00:00:00Z' }, DEFAULTS.apiKey),
        fillDefaults(
          { id: 'key_dash', name: 'dashboard', prefix: 'svc_staging_cd', scopes: ['read'], spend: { dailyUsd: 5 }, createdAt: '2026-01-02T00:00:00Z' },
          DEFAULTS.apiKey,
        ),
      ]),
    ],
  };
}

async function writeExport(result: ExportResult): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentform-export-'));
  for (const file of result.files) {
    await mkdir(dirname(join(dir, file.path)), { recursive: true });
    await writeFile(join(dir, file.path), file.content);
  }
  return dir;
}

function fileOf(result: ExportResult, path: string): string {
  const file = result.files.find((candidate) => candidate.path === path);
  if (!file) throw new Error(`no ${path} in ${result.files.map((f) => f.path).join(', ')}`);
  return file.content;
}

const target = { name: 'staging', slug: 'staging', url: 'https://control.example.test' };

describe('exportEnvironment', () => {
  const actual = liveState();
  const result = exportEnvironment({
    target,
    actual,
    skipApiKeyIds: new Set(['key_ci']),
    environmentNames: new Map([['env_d', 'dev']]),
    schemas: specSchemas() as ExportSchemas,
  });
  const processEnv = Object.fromEntries(result.envVars.map((need) => [need.name, `value-of-${need.name}`]));

  it('writes one file per kind, one per agent, and the prompts', () => {
    expect(result.files.map((file) => file.path).sort()).toEqual([
      'agentform.yaml',
      'agents/researcher.yaml',
      'agents/support.yaml',
      'apikeys.yaml',
      'connections.yaml',
      'prompts/researcher.md',
      'prompts/support.md',
      'providers.yaml',
      'secrets.yaml',
    ]);
    expect(result.counts).toEqual({ provider: 2, secret: 1, connection: 1, grant: 2, agent: 2, apiKey: 1 });
  });

  it('extracts prompts verbatim and references them relative to the agent file', () => {
    expect(fileOf(result, 'prompts/support.md')).toBe(SYSTEM);
    expect(fileOf(result, 'agents/support.yaml')).toContain('system: ${file:../prompts/support.md}');
    expect(fileOf(result, 'agents/support.yaml')).toContain('# Promoted from environment dev, version 7.');
  });

  it('writes placeholders for every write-only value, and names the variables', () => {
    expect(result.envVars.map((need) => need.name).sort()).toEqual([
      'AGENTFORM_TOKEN_STAGING',
      'GRANT_CRM_ALICE',
      'GRANT_CRM_USER_ALICE', // the team grant sorts first and gets the short name
      'PROVIDER_OPENAI_SECRET',
      'SECRET_NPM_TOKEN',
    ]);
    expect(fileOf(result, 'providers.yaml')).toContain('secret: ${env:PROVIDER_OPENAI_SECRET}');
    expect(fileOf(result, 'providers.yaml').match(/secret:/g)).toHaveLength(1); // local-llm has none
    expect(fileOf(result, 'agentform.yaml')).toContain('token: ${env:AGENTFORM_TOKEN_STAGING}');
  });

  // Regression: the export dropped values equal to the local control plane's defaults, so a project
  // exported from one server and applied to a server with other defaults did not reproduce it.
  it("writes what the server reports, values equal to one server's defaults included", () => {
    const support = fileOf(result, 'agents/support.yaml');
    for (const kept of ['reasoning: none', 'maxDepth: 2', 'keepSnapshots: 3', 'toolLoading:', 'identity:', 'onExpire: deny']) expect(support).toContain(kept);
    expect(fileOf(result, 'connections.yaml')).toMatch(/transport: streamable-http/);
    expect(fileOf(result, 'agentform.yaml')).toMatch(/retention:/);
  });

  it('leaves out nulls, the default display name and the key in use', () => {
    const support = fileOf(result, 'agents/support.yaml');
    expect(support).not.toMatch(/^ {2}name:/m);
    expect(support).not.toContain('null');
    expect(fileOf(result, 'agents/researcher.yaml')).toContain('name: Researcher');
    expect(fileOf(result, 'connections.yaml')).not.toContain('hooksUrl');
    expect(fileOf(result, 'apikeys.yaml')).not.toContain('name: ci');
    expect(result.notes.join('\n')).toContain('apiKey/ci was left out');
  });

  // Regression: unknown fields a server reports were written and then failed validation.
  it('leaves out fields the configuration does not know, with a note', () => {
    const support = fileOf(result, 'agents/support.yaml');
    expect(support).not.toContain('futureField');
    expect(support).not.toContain('serverRevision');
    expect(result.notes).toContain(
      'agent/support: left out 2 fields the configuration does not know (model.serverRevision, futureField); the exported project does not manage them, so apply keeps their values',
    );
  });

  it('round-trips to a server with other defaults: applying the export there reproduces the values', async () => {
    const dir = await writeExport(result);
    const desired = desiredStateFor(await loadProject(dir), 'staging', processEnv);
    const exportedSupport = desired.resources.find((resource) => resource.kind === 'agent' && resource.name === 'support')!;
    // The same agent on a server whose defaults for the fields the export wrote are other values.
    const spec = exportedSupport.spec as { subagentPolicy: object; sandbox: object };
    const other = normalizeAgent({
      agentId: 'ag_other',
      slug: 'support',
      version: 1,
      definition: { ...spec, subagentPolicy: { ...spec.subagentPolicy, maxDepth: 5 }, sandbox: { ...spec.sandbox, lifecycle: { keepSnapshots: 9 } } } as never,
    });
    const plan = computePlan(
      { ...desired, resources: [exportedSupport] },
      { environmentSlug: 'staging', missingOperations: [], resources: [other] },
      { prune: false },
    );
    const fields = plan.changes.find((change) => change.address === 'agent/support')!.fields.map((field) => [field.path, field.before, field.after]);
    expect(fields).toEqual(
      expect.arrayContaining([
        ['subagentPolicy.maxDepth', 5, 2],
        ['sandbox.lifecycle.keepSnapshots', 9, 3],
      ]),
    );
  });

  it('is valid against the schemas and every project check', async () => {
    const dir = await writeExport(result);
    // The server's own values are written as reported: one it names but the API does not (the
    // environment kind "development") is a warning, never an error.
    const problems = await validateProject(dir, { env: processEnv });
    expect(problems.filter((problem) => problem.severity !== 'warning')).toEqual([]);
    expect(problems.map((problem) => problem.jsonPath)).toEqual(['environments.staging.settings.kind']);
  });

  it('planned against the same live state, shows no changes', async () => {
    const dir = await writeExport(result);
    const desired = desiredStateFor(await loadProject(dir), 'staging', processEnv);
    const withoutOwnKey = { ...actual, resources: actual.resources.filter((resource) => resource.id !== 'key_ci') };
    const plan = computePlan(desired, withoutOwnKey, { prune: true });
    expect(plan.changes.filter((change) => change.action !== 'no-op')).toEqual([]);
    // The ${ in the description and the prompt came back as written, not interpolated.
    const support = desired.resources.find((resource) => resource.kind === 'agent' && resource.name === 'support');
    expect(support?.spec.description).toBe('Costs ${var:price}');
    expect(support?.spec.system).toBe(SYSTEM);
  });

  it('local environments need no token', () => {
    const local = exportEnvironment({
      target: { name: 'dev', slug: 'dev', url: 'local' },
      actual: { environmentSlug: 'dev', resources: [], missingOperations: [] },
      schemas: {},
    });
    expect(local.envVars).toEqual([]);
    expect(fileOf(local, 'agentform.yaml')).not.toContain('token');
    expect(local.files.map((file) => file.path)).toEqual(['agentform.yaml']);
  });
});
