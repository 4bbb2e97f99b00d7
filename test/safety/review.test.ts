import { describe, expect, it } from 'vitest';
import { desiredStateFor, loadProject } from '../../src/config/index.js';
import { reviewEnvironment } from '../../src/safety/review.js';
import { writeProject } from '../config/helpers.js';

// Two agents without limits and an environment without spend caps: a warning each, located in the files.
const agent = (name: string) => `kind: Agent
name: ${name}
spec:
  model: {provider: openai, model: gpt-4o}
  system: Be brief.
  policies:
    toolCalls: {default: allow, hook: {connection: tools}}
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
      ['limits-missing', 'agent/b', 'agents.yaml', 12],
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
