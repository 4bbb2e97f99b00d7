import { describe, expect, it } from 'vitest';
import { loadProject, validateProject } from '../../src/config/index.js';
import { ownershipRulesOf, patternProblem } from '../../src/config/ownership.js';
import { writeProject } from './helpers.js';

describe('patternProblem', () => {
  const cases: Array<[pattern: string, problem: RegExp | undefined]> = [
    ['agent/team-a-*', undefined],
    ['*/team-a-*', undefined],
    ['a*/x', undefined],
    ['apiKey/ci-*', undefined],
    ['team-a-*', /is not an address pattern/],
    ['/team-a', /is not an address pattern/],
    ['agent/', /is not an address pattern/],
    ['agents/team-a-*', /unknown kind "agents".*did you mean "agent"/],
  ];
  it.each(cases)('%s', (pattern, problem) => {
    const found = patternProblem(pattern, 'owns');
    if (problem) expect(found).toMatch(problem);
    else expect(found).toBeUndefined();
  });
});

const ROOT = `version: 1
owns: [agent/a-*]
protect:
  - agent/a-main
forget:
  - address: agent/a-old
    reason: moved
environments:
  dev:
    url: local
    protect: [agent/a-billing]
  prod:
    url: local
    forget: [agent/a-gone]
`;

describe('ownershipRulesOf', () => {
  it('adds an environment’s protect: and forget: to the top-level lists, each located', async () => {
    const project = await loadProject(writeProject({ 'agentform.yaml': ROOT }));
    expect(ownershipRulesOf(project, 'dev')).toEqual({
      owns: ['agent/a-*'],
      protect: [
        { pattern: 'agent/a-main', location: { file: 'agentform.yaml', line: 4, col: 5 } },
        { pattern: 'agent/a-billing', location: { file: 'agentform.yaml', line: 11, col: 15 } },
      ],
      forget: [{ pattern: 'agent/a-old', reason: 'moved', location: { file: 'agentform.yaml', line: 6, col: 5 } }],
    });
    expect(ownershipRulesOf(project, 'prod').forget.map((rule) => rule.pattern)).toEqual(['agent/a-old', 'agent/a-gone']);
  });
});

describe('validate', () => {
  it('locates a pattern that cannot match an address', async () => {
    const problems = await validateProject(
      writeProject({ 'agentform.yaml': 'version: 1\nowns: [agent/a-*, team-b]\nenvironments:\n  dev:\n    url: local\n' }),
    );
    expect(problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        location: { file: 'agentform.yaml', line: 2, col: 19 },
        message: expect.stringContaining('"team-b" is not an address pattern'),
      }),
    ]);
  });

  it('finds a declaration forgotten in one environment only', async () => {
    const agent = 'kind: Agent\nname: a-gone\nspec:\n  model: {provider: p, model: m}\n  system: s\n';
    const problems = await validateProject(writeProject({ 'agentform.yaml': ROOT, 'gone.yaml': agent }));
    expect(problems.map((problem) => problem.message)).toContainEqual(
      expect.stringMatching(/agent\/a-gone is declared, and forget: agent\/a-gone \(agentform\.yaml:14:14\) says .* in prod/),
    );
  });
});
