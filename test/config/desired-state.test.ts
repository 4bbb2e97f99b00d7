// desiredStateFor: the per-kind spec shapes of src/model/resources.ts, overlays, promotion,
// interpolation and write-only values.
import { describe, expect, it } from 'vitest';
import { ProblemsError } from '../../src/errors.js';
import { desiredStateFor, loadProject } from '../../src/config/index.js';
import { computePlan } from '../../src/engine/plan.js';
import type { DesiredResource, DesiredState } from '../../src/model/resources.js';
import { writeProject } from './helpers.js';

const ROOT = `version: 1
organization:
  name: Example Corp
environments:
  dev:
    url: local
    variables: {company: Dev Corp}
  production:
    url: https://api.example.com
    slug: prod
    token: \${env:PROD_TOKEN}
    prune: true
    maxDeleteShare: 0.2
    settings:
      name: Production
      kind: production
      spend: {dailyUsd: 100}
    variables: {company: Example Corp}
`;

const FILES = {
  'agentform.yaml': ROOT,
  'prompts/support.md': 'Support for everyone.\n',
  'platform.yaml': `kind: Provider
name: openai
spec:
  type: openai
  baseUrl: https://llm.example.com
  secret:
    value: \${env:OPENAI_KEY}
    rotatedAt: 2026-02-01
---
kind: Secret
name: npm
spec:
  value: \${file:secrets/npm.txt}
---
kind: Connection
name: github
spec:
  url: https://tools.example.com/mcp
  auth: {type: svc-signed, audience: "\${env:TOOLS_AUDIENCE}", clientSecret: {value: "\${file:secrets/client.txt}", rotatedAt: 2026-03-02}}
  grants:
    - identity: {scope: user, id: alice}
      accessToken: \${env:ALICE_TOKEN}
      rotatedAt: 2026-03-01
---
kind: ApiKey
name: ci
protect: true
spec:
  scopes: [read, control]
  tokenFile: .agentform/ci.token
overlays:
  production:
    tokenFile: .agentform/production/ci.token
`,
  'secrets/npm.txt': 'npm-secret-value\n',
  'secrets/client.txt': 'client-secret-value\n',
  'agents/support.yaml': `kind: Agent
name: support
spec:
  description: Support for \${var:company}
  model:
    provider: openai
    model: gpt-4o
    fallback:
      models: [{provider: openai, model: gpt-4o-mini}]
  compaction:
    model: {provider: openai, model: gpt-4o-mini}
  system: \${file:../prompts/support.md}
  tools: [{type: builtin, name: current_time}]
  policies:
    toolCalls:
      hook: {connection: github}
  limits: {maxTurns: 10}
  subagents:
    - {kind: agent, name: r, agent: researcher}
  sandbox:
    connectionName: github
    image: {base: node, secrets: [npm]}
overlays:
  dev:
    limits: {maxTurns: 99}
    description: null
    tools: []
  production:
    promote: {from: dev, version: 3}
---
kind: Agent
name: researcher
spec:
  name: Research assistant
  model: {provider: openai, model: gpt-4o-mini}
  system: "Cost: $\${literal}"
`,
};

const ENV = { OPENAI_KEY: 'sk-test', ALICE_TOKEN: 'gho-alice', PROD_TOKEN: 'svc_prod_abcdefgh', TOOLS_AUDIENCE: 'tools' };

async function stateFor(environment: string, env: NodeJS.ProcessEnv = ENV): Promise<DesiredState> {
  return desiredStateFor(await loadProject(writeProject(FILES)), environment, env);
}

function find(state: DesiredState, address: string): DesiredResource {
  const found = state.resources.find((resource) => `${resource.kind}/${resource.name}` === address);
  if (!found) throw new Error(`no ${address} in ${state.resources.map((r) => `${r.kind}/${r.name}`).join(', ')}`);
  return found;
}

describe('desiredStateFor', () => {
  it('builds the environment target, with the credential resolved late', async () => {
    const state = await stateFor('production');
    expect(state.target).toEqual({
      name: 'production',
      slug: 'prod',
      url: 'https://api.example.com',
      prune: true,
      maxDeleteShare: 0.2,
      credential: { source: '${env:PROD_TOKEN}', value: 'svc_prod_abcdefgh' },
    });
    expect((await stateFor('dev')).target).toEqual({ name: 'dev', slug: 'dev', url: 'local', prune: false });
  });

  it('turns organization and environment settings into resources', async () => {
    const state = await stateFor('production');
    expect(find(state, 'organization/current').spec).toEqual({ name: 'Example Corp' });
    expect(find(state, 'environment/prod').spec).toEqual({ name: 'Production', kind: 'production', spend: { dailyUsd: 100 } });
    expect(state.resources.some((resource) => resource.kind === 'environment' && resource.name === 'dev')).toBe(false);
  });

  it('applies overlays: objects merge, arrays replace, null stays (reset to server default)', async () => {
    const agent = find(await stateFor('dev'), 'agent/support');
    expect(agent.spec.limits).toEqual({ maxTurns: 99 });
    expect(agent.spec.tools).toEqual([]);
    expect(agent.spec.description).toBeNull();
    expect(agent.spec.name).toBe('support');
    expect(agent.spec.system).toBe('Support for everyone.\n');
    expect(agent.promotion).toBeUndefined();
  });

  it('interpolates variables per environment and keeps $${ literal', async () => {
    const production = await stateFor('production');
    expect(find(production, 'agent/support').spec.description).toBe('Support for Example Corp');
    expect(find(production, 'agent/researcher').spec.system).toBe('Cost: ${literal}');
    expect(find(production, 'agent/researcher').spec.name).toBe('Research assistant');
  });

  it('records a declarative promotion', async () => {
    const agent = find(await stateFor('production'), 'agent/support');
    expect(agent.promotion).toEqual({ fromEnvironment: 'dev', version: 3 });
  });

  it('lists every by-name reference with its path', async () => {
    const agent = find(await stateFor('dev'), 'agent/support');
    expect(agent.references).toEqual([
      { kind: 'provider', name: 'openai', path: 'model.provider' },
      { kind: 'provider', name: 'openai', path: 'model.fallback.models[0].provider' },
      { kind: 'provider', name: 'openai', path: 'compaction.model.provider' },
      { kind: 'connection', name: 'github', path: 'policies.toolCalls.hook.connection' },
      { kind: 'connection', name: 'github', path: 'sandbox.connectionName' },
      { kind: 'agent', name: 'researcher', path: 'subagents[0].agent' },
      { kind: 'secret', name: 'npm', path: 'sandbox.image.secrets[0]' },
    ]);
  });

  it('shapes providers, secrets, connections, grants and API keys like the model says', async () => {
    const state = await stateFor('dev');
    const provider = find(state, 'provider/openai');
    expect(provider.spec).toEqual({ type: 'openai', baseUrl: 'https://llm.example.com' });
    expect(provider.writeOnly).toEqual({ secret: { source: '${env:OPENAI_KEY}', value: 'sk-test', rotatedAt: '2026-02-01' } });
    const secret = find(state, 'secret/npm');
    expect(secret.spec).toEqual({});
    expect(secret.writeOnly).toEqual({ value: { source: '${file:secrets/npm.txt}', value: 'npm-secret-value' } });
    const connection = find(state, 'connection/github');
    // Every auth field but type is write-only, whatever its name: never in the spec.
    expect(connection.spec).toEqual({ url: 'https://tools.example.com/mcp', auth: { type: 'svc-signed' } });
    expect(connection.writeOnly).toEqual({
      'auth.audience': { source: '${env:TOOLS_AUDIENCE}', value: 'tools' },
      'auth.clientSecret': { source: '${file:secrets/client.txt}', value: 'client-secret-value', rotatedAt: '2026-03-02' },
    });
    const grant = find(state, 'grant/github:user:alice');
    expect(grant.spec).toEqual({ connection: 'github', identity: { scope: 'user', id: 'alice' } });
    expect(grant.writeOnly).toEqual({ accessToken: { source: '${env:ALICE_TOKEN}', value: 'gho-alice', rotatedAt: '2026-03-01' } });
    expect(grant.references).toEqual([{ kind: 'connection', name: 'github', path: 'connection' }]);
    const key = find(state, 'apiKey/ci');
    expect(key.spec).toEqual({ scopes: ['read', 'control'] });
    expect(key.options).toEqual({ tokenFile: '.agentform/ci.token' });
    expect(key.protect).toBe(true);
    expect(key.location).toMatchObject({ file: 'platform.yaml', line: 26, col: 7 });
  });

  it('leaves a write-only value without value when its variable is unset (apply reports it)', async () => {
    const provider = find(await stateFor('dev', { ALICE_TOKEN: 'gho-alice' }), 'provider/openai');
    expect(provider.writeOnly).toEqual({ secret: { source: '${env:OPENAI_KEY}', rotatedAt: '2026-02-01' } });
  });

  it('leaves a write-only value without value when its ${file:} is missing (plan does not need it)', async () => {
    const { 'secrets/npm.txt': _absent, ...withoutSecretFile } = FILES;
    const dir = writeProject(withoutSecretFile);
    const project = await loadProject(dir);
    const secret = find(desiredStateFor(project, 'dev', { OPENAI_KEY: 'sk-test', ALICE_TOKEN: 'gho-alice' }), 'secret/npm');
    expect(secret.writeOnly).toEqual({ value: { source: '${file:secrets/npm.txt}' } });
  });

  it('throws ProblemsError naming an unset variable of a normal field, never a value', async () => {
    const files = { ...FILES, 'extra.yaml': 'kind: Agent\nname: extra\nspec:\n  model: {provider: openai, model: m}\n  system: ${env:EXTRA_PROMPT}\n' };
    const error = await Promise.resolve()
      .then(async () => desiredStateFor(await loadProject(writeProject(files)), 'dev', { ALICE_TOKEN: 'gho-alice' }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProblemsError);
    const problems = (error as ProblemsError).problems;
    expect(problems.map((problem) => problem.message)).toEqual([
      'spec.system: environment variable EXTRA_PROMPT is not set (or use ${env:EXTRA_PROMPT:-default})',
    ]);
    expect(JSON.stringify(problems)).not.toContain('gho-alice');
  });
});

describe('null in a spec or in environment settings', () => {
  // null means "left to the server"; it must be writable where the field is, not only in overlays.
  it('is accepted on optional fields and kept in the desired spec', async () => {
    const dir = writeProject({
      'agentform.yaml': 'version: 1\nenvironments:\n  dev:\n    url: local\n    settings:\n      spend: {dailyUsd: null}\n',
      'a.yaml': 'kind: Agent\nname: a\nspec:\n  model: {provider: p, model: m, reasoning: null}\n  system: x\n  sandbox: {tools: {deny: null}}\n',
      'p.yaml': 'kind: Provider\nname: p\nspec:\n  type: openai\n',
    });
    const state = desiredStateFor(await loadProject(dir), 'dev', {});
    expect(find(state, 'agent/a').spec).toMatchObject({ model: { reasoning: null }, sandbox: { tools: { deny: null } } });
    expect(find(state, 'environment/dev').spec).toEqual({ spend: { dailyUsd: null } });
  });

  it('is still an error on a required field', async () => {
    const dir = writeProject({
      'agentform.yaml': 'version: 1\nenvironments:\n  dev:\n    url: local\n',
      'a.yaml': 'kind: Agent\nname: a\nspec:\n  model: {provider: p, model: m}\n  system: null\n',
    });
    await expect(loadProject(dir)).rejects.toBeInstanceOf(ProblemsError);
  });
});

describe('loadProject', () => {
  it('throws one ProblemsError with every problem', async () => {
    const dir = writeProject({
      'a.yaml': 'kind: Agent\nname: a\nspec:\n  modle: {}\n  system: x\n',
      'b.yaml': 'kind: Provider\nname: p\nspec:\n  type: openai\n  secret: literal\n',
    });
    const error = await loadProject(dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProblemsError);
    expect((error as ProblemsError).problems.map((problem) => problem.message)).toEqual([
      'spec: missing required key "model" in spec',
      'spec.modle: unknown key "modle" in spec; did you mean "model"?',
      'spec.secret: a write-only value must be exactly ${env:NAME} or ${file:PATH}: a literal value (or any other text) is not allowed here',
    ]);
    expect(JSON.stringify((error as ProblemsError).problems)).not.toContain('literal"');
  });

  it('does not need environment variables (they are checked per environment later)', async () => {
    const dir = writeProject({ 'p.yaml': 'kind: Provider\nname: p\nspec:\n  type: openai\n  secret: ${env:UNSET_FOR_SURE}\n' });
    const project = await loadProject(dir);
    expect(Object.keys(project.environments)).toEqual(['dev']);
    expect(project.documents.map((document) => `${document.kind}/${document.name}`)).toEqual(['Provider/p']);
  });
});

describe('desiredStateFor after loadProject (the build loadProject made is reused)', () => {
  // With the process environment, desiredStateFor takes loadProject's build of the environment,
  // whose unset ${env:} were set aside: it must report exactly what a build of its own reports.
  const UNSET = 'AGENTFORM_TEST_SURELY_UNSET_VARIABLE';
  const files = {
    ...FILES,
    'extra.yaml': `kind: Agent\nname: extra\nspec:\n  model: {provider: openai, model: m}\n  system: \${env:${UNSET}}\n  description: \${var:company}\n`,
  };
  const problemsOf = (run: () => unknown): string[] => {
    try {
      run();
    } catch (error) {
      if (error instanceof ProblemsError) return error.problems.map((problem) => `${problem.location?.line}:${problem.location?.col} ${problem.message}`);
      throw error;
    }
    return [];
  };

  it('reports the same unset variables as a fresh build, the first time and again', async () => {
    delete process.env[UNSET];
    const dir = writeProject(files);
    const freshProject = await loadProject(dir);
    // Another object than process.env: a build of its own.
    const fresh = problemsOf(() => desiredStateFor(freshProject, 'dev', { ...process.env }));
    expect(fresh.some((line) => line.includes(UNSET))).toBe(true);
    const project = await loadProject(dir, { environment: 'dev' });
    expect(problemsOf(() => desiredStateFor(project, 'dev'))).toEqual(fresh);
    expect(problemsOf(() => desiredStateFor(project, 'dev'))).toEqual(fresh);
  });

  it('gives the same desired state as a fresh build', async () => {
    const dir = writeProject(FILES);
    const added = Object.keys(ENV).filter((key) => process.env[key] === undefined);
    Object.assign(process.env, ENV);
    try {
      const reused = desiredStateFor(await loadProject(dir, { environment: 'dev' }), 'dev');
      expect(reused).toEqual(desiredStateFor(await loadProject(dir), 'dev', { ...process.env }));
    } finally {
      for (const key of added) delete process.env[key];
    }
  });
});

describe('interpolation copies only what it changes', () => {
  it('leaves the parsed documents as written, in every environment', async () => {
    const dir = writeProject({
      'agentform.yaml': 'version: 1\nenvironments:\n  dev: {url: local, variables: {who: dev}}\n  prod: {url: local, slug: p, variables: {who: prod}}\n',
      'a.yaml':
        'kind: Agent\nname: a\nspec:\n  model: {provider: p, model: m}\n  system: x\n  tools: [{type: builtin, name: current_time}, {type: builtin, name: "${var:who}"}]\n  limits: {maxTurns: 3}\n',
      'p.yaml': 'kind: Provider\nname: p\nspec:\n  type: openai\n',
    });
    const project = await loadProject(dir);
    const dev = find(desiredStateFor(project, 'dev', {}), 'agent/a').spec;
    const prod = find(desiredStateFor(project, 'prod', {}), 'agent/a').spec;
    expect(dev.tools).toEqual([
      { type: 'builtin', name: 'current_time' },
      { type: 'builtin', name: 'dev' },
    ]);
    expect(prod.tools).toEqual([
      { type: 'builtin', name: 'current_time' },
      { type: 'builtin', name: 'prod' },
    ]);
    expect(dev.limits).toEqual({ maxTurns: 3 });
    const written = project.documents.find((document) => document.name === 'a')!.spec!;
    expect(written.tools).toEqual([
      { type: 'builtin', name: 'current_time' },
      { type: 'builtin', name: '${var:who}' },
    ]);
  });
});

describe('a connection an agent calls (tools[] {type: connection})', () => {
  const files = {
    'agents.yaml': 'kind: Agent\nname: helper\nspec:\n  model: {provider: p, model: m}\n  system: x\n  tools: [{type: connection, name: everything}]\n',
    'p.yaml': 'kind: Provider\nname: p\nspec:\n  type: openai\n',
    'c.yaml': 'kind: Connection\nname: everything\nspec:\n  auth: {type: svc-signed}\n',
  };
  const empty = { environmentSlug: 'dev', resources: [], missingOperations: [] };

  it('is a dependency of the agent: created first, and planned with it under --target', async () => {
    const desired = desiredStateFor(await loadProject(writeProject(files)), 'dev', {});
    expect(find(desired, 'agent/helper').references).toContainEqual({ kind: 'connection', name: 'everything', path: 'tools[0].name' });
    const plan = computePlan(desired, empty, { prune: false });
    expect(plan.changes.find((change) => change.address === 'agent/helper')?.dependsOn).toEqual(['provider/p', 'connection/everything']);
    const targeted = computePlan(desired, empty, { prune: false, targets: ['agent/helper'] });
    expect(targeted.changes.map((change) => change.address)).toEqual(['provider/p', 'connection/everything', 'agent/helper']);
  });
});
