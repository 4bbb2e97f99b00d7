// reviewEnvironment: where its findings point, and `capabilityChanges: false` (apply), which gives the
// same findings, notes and counts as the full review without the capability diff only plan prints.
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { desiredStateFor, loadProject } from '../../src/config/index.js';
import { computePlan } from '../../src/engine/plan.js';
import type { ActualState } from '../../src/model/resources.js';
import { reviewPlan } from '../../src/safety/index.js';
import { reviewEnvironment } from '../../src/safety/review.js';
import { scopeStates } from '../../src/engine/ownership.js';
import { actual } from '../engine/builders.js';
import { REPO } from '../helpers/cli.js';
import { writeProject } from '../config/helpers.js';

const FIXTURE = join(REPO, 'test', 'fixtures', 'safety', 'project');

describe('reviewEnvironment with and without the capability diff', () => {
  it('leaves out only capabilityChanges and identityChanges: every finding (with its location), note and count is the same', async () => {
    // The support agent without its hook: a policy error (destructive tools with no decision).
    const dir = await mkdtemp(join(tmpdir(), 'agentform-review-'));
    await cp(FIXTURE, dir, { recursive: true });
    const agents = await readFile(join(dir, 'agents.yaml'), 'utf8');
    await writeFile(join(dir, 'agents.yaml'), agents.replace('      hook:\n        connection: github\n', ''));
    const project = await loadProject(dir);
    const desired = desiredStateFor(project, 'prod', { ...process.env, GITHUB_TOKEN: 'x', OPENAI_API_KEY: 'x' });
    // Everything to create: the diff is not empty, so leaving it out is visible.
    const actual: ActualState = { environmentSlug: desired.target.slug, resources: [], missingOperations: [] };
    const plan = computePlan(desired, actual, { prune: false });
    const full = reviewEnvironment({ project, desired, actual, plan, cwd: dir });
    const lean = reviewEnvironment({ project, desired, actual, plan, cwd: dir, capabilityChanges: false });
    expect(full.capabilityChanges?.length).toBeGreaterThan(0);
    expect(lean.capabilityChanges).toBeUndefined();
    expect(lean.identityChanges).toBeUndefined();
    const { capabilityChanges, identityChanges, ...rest } = full;
    expect(capabilityChanges).toBeDefined();
    expect(identityChanges).toBeDefined();
    expect(JSON.parse(JSON.stringify(lean))).toEqual(JSON.parse(JSON.stringify(rest)));
    expect(lean.counts.errors).toBeGreaterThan(0);
    expect(lean.findings.every((finding) => finding.location !== undefined)).toBe(true);

    // A plan that writes nothing (here: the same changes, each made a no-op) leaves the server, and
    // every agent's capabilities, as they are, whatever the configuration says.
    const writesNothing = { ...plan, changes: plan.changes.map((change) => ({ ...change, action: 'no-op' as const })) };
    const unchanged = reviewEnvironment({ project, desired, actual, plan: writesNothing, cwd: dir });
    expect(unchanged.capabilityChanges).toEqual([]);
    expect(unchanged.identityChanges).toEqual([]);
  });
});

// Two agents without limits and an environment without spend caps: a warning each, located in the files.
const agent = (name: string) => `kind: Agent
name: ${name}
spec:
  model: {provider: openai, model: gpt-4o}
  system: Be brief.
  policies:
    toolCalls: {default: allow, hook: {connection: tools}, onError: deny, onTimeout: deny}
    decisions: {onExpire: deny}
`;
const FILES = {
  'platform.yaml': `kind: Provider\nname: openai\nspec:\n  type: openai\n---\nkind: Connection\nname: tools\nspec:\n  url: http://127.0.0.1:9/mcp\n  auth: {type: svc-signed}\n`,
  'agents.yaml': `${agent('a')}---\n${agent('b')}`,
};

async function review() {
  const dir = writeProject(FILES);
  const project = await loadProject(dir);
  return reviewEnvironment({ project, desired: desiredStateFor(project, 'dev', {}), cwd: dir });
}

describe('reviewEnvironment findings', () => {
  it('locate each finding in the files, and JSON carries the location in place', async () => {
    const findings = (await review()).findings;
    expect(findings.map((finding) => [finding.rule, finding.address, finding.location?.file, finding.location?.line])).toEqual([
      ['limits-missing', 'agent/a', 'agents.yaml', 4],
      ['limits-missing', 'agent/b', 'agents.yaml', 13],
      ['environment-spend-caps-missing', 'environment/dev', 'agentform.yaml', 3],
    ]);
    const json = JSON.parse(JSON.stringify(findings[0])) as Record<string, unknown>;
    expect(json.location).toEqual(findings[0]!.location);
    expect(Object.keys(findings[0]!)).toContain('location');
    // A spread copy (how renderers pass findings on) keeps it too; the hidden cache does not leak.
    expect({ ...findings[0]! }.location).toEqual(findings[0]!.location);
    expect(Object.getOwnPropertySymbols({ ...findings[0]! })).toEqual([]);
  });

  it('reads every location through one getter: a getter per finding gave each its own hidden class (~400 bytes more per finding)', async () => {
    const findings = (await review()).findings;
    expect(findings.length).toBeGreaterThan(2);
    const getters = new Set(findings.map((finding) => Object.getOwnPropertyDescriptor(finding, 'location')?.get));
    expect(getters.size).toBe(1);
    expect([...getters][0]).toBeTypeOf('function');
  });
});

describe('reviewPlan of a scoped plan', () => {
  // Agent a falls back to provider backup; agent b has no limits. Both providers live.
  const withFallback = `kind: Agent
name: a
spec:
  model: {provider: openai, model: gpt-4o, fallback: {models: [{provider: backup, model: gpt-4o}]}}
  system: Be brief.
  limits: {maxTurns: 5}
`;
  const files = {
    'platform.yaml': FILES['platform.yaml'],
    'backup.yaml': 'kind: Provider\nname: backup\nspec:\n  type: openai\n  secret: ${env:BACKUP_KEY}\n',
    'a.yaml': withFallback,
    'b.yaml': agent('b'),
  };

  it('judges the whole configuration, and keeps only the findings on what the plan covers', async () => {
    const dir = writeProject(files);
    const project = await loadProject(dir);
    const desired = desiredStateFor(project, 'dev', { BACKUP_KEY: 'x' });
    const live = ['openai', 'backup'].map((name) => actual('provider', name, { type: 'openai' }));
    const actualState: ActualState = { environmentSlug: desired.target.slug, resources: live, missingOperations: [] };
    const scoped = scopeStates(desired, actualState, { protect: [], forget: [], excludes: ['provider/backup', 'agent/b'] });
    const plan = computePlan(scoped.desired, scoped.actual, { prune: false });
    const reviewed = await reviewPlan({ project, desired, actual: actualState, plan, planned: { desired: scoped.desired, actual: scoped.actual } });
    const found = reviewed.findings.map((finding) => `${finding.rule} ${finding.address}`);
    // The excluded provider is still declared: no "is not declared" finding on the agent using it.
    expect(found).not.toContainEqual(expect.stringMatching(/^fallback-provider-without-secret/));
    // Agent b is excluded: its missing limits are not this run's finding.
    expect(found).not.toContain('limits-missing agent/b');
    expect(found).toContain('environment-spend-caps-missing environment/dev');
  });
});
