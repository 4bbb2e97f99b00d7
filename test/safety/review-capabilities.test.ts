// reviewEnvironment computes the agents' capabilities once for the policy (the configuration) and,
// only when the capability diff is asked for, once for each side of the diff (what the server runs
// before and after apply). The policy's findings never depend on what only the server has.
import { describe, expect, it, vi } from 'vitest';
import { desiredStateFor, loadProject } from '../../src/config/index.js';
import { computeCapabilities } from '../../src/engine/capabilities.js';
import { computePlan } from '../../src/engine/plan.js';
import type { ActualResource, ActualState } from '../../src/model/resources.js';
import { reviewEnvironment } from '../../src/safety/review.js';
import { writeProject } from '../config/helpers.js';

vi.mock('../../src/engine/capabilities.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/engine/capabilities.js')>();
  return { ...real, computeCapabilities: vi.fn(real.computeCapabilities) };
});

const FILES = {
  'platform.yaml':
    'kind: Provider\nname: openai\nspec:\n  type: openai\n---\nkind: Connection\nname: tools\nspec:\n  url: http://127.0.0.1:9/mcp\n  auth: {type: svc-signed}\n',
  'agents.yaml': `kind: Agent
name: lead
spec:
  model: {provider: openai, model: gpt-4o}
  system: Be brief.
  policies:
    toolCalls: {default: allow, hook: {connection: tools}}
`,
};

const live = (kind: ActualResource['kind'], name: string, spec: ActualResource['spec']): ActualResource => ({
  kind,
  name,
  id: `${kind}-${name}`,
  spec,
  remote: spec,
  fingerprint: name,
});

// A server-only agent with tools of a connection no lock describes: treated as destructive.
const helper = live('agent', 'helper', {
  name: 'helper',
  model: { provider: 'openai', model: 'gpt-4o' },
  system: 'x',
  tools: [{ type: 'connection', connection: 'tools' }],
});
const key = live('apiKey', 'local-dev', { name: 'local-dev', scopes: ['read', 'control'] });

describe('reviewEnvironment: the capabilities it computes', () => {
  it.each([
    ['a key only the server has', [key], { full: 3, apply: 1 }],
    // The diff sees `helper` too; the policy sees only what the configuration declares.
    ['an agent only the server has', [key, helper], { full: 3, apply: 1 }],
  ])('with %s', async (_, serverOnly, calls) => {
    const dir = writeProject(FILES);
    const project = await loadProject(dir);
    const desired = desiredStateFor(project, 'dev', {});
    const actual: ActualState = { environmentSlug: desired.target.slug, resources: serverOnly, missingOperations: [] };
    const plan = computePlan(desired, actual, { prune: false });
    const counted = vi.mocked(computeCapabilities);
    const findings: Record<string, unknown> = {};
    for (const [run, capabilityChanges] of [
      ['full', true],
      ['apply', false],
    ] as const) {
      counted.mockClear();
      const review = reviewEnvironment({ project, desired, actual, plan, cwd: dir, capabilityChanges });
      expect(counted).toHaveBeenCalledTimes(calls[run]);
      findings[run] = review.findings.map((finding) => `${finding.rule} ${finding.address}`);
    }
    expect(findings.apply).toEqual(findings.full);
    // The policy judged what is declared, as without anything only the server has.
    const withoutServerOnly = reviewEnvironment({
      project,
      desired,
      actual: { ...actual, resources: [] },
      plan: computePlan(desired, { ...actual, resources: [] }, { prune: false }),
      cwd: dir,
    });
    expect(findings.full).toEqual(withoutServerOnly.findings.map((finding) => `${finding.rule} ${finding.address}`));
  });
});
