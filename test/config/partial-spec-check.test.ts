// An agent whose own spec lacks model or system (it has overlays, or extends a template) passes
// its document check, and its spec is checked in full once merged: a bad value the merge brings, or
// a required field nobody gives, is reported. (The document check used to fail such an agent
// silently, which skipped the merged check.)
import { describe, expect, it } from 'vitest';
import { desiredStateFor, loadProject } from '../../src/config/index.js';
import { ProblemsError } from '../../src/errors.js';
import { writeProject } from './helpers.js';

const PROVIDER = 'kind: Provider\nname: openai\nspec:\n  type: openai\n';
const TEMPLATE = 'kind: AgentTemplate\nname: base\nspec:\n  model: {provider: openai, model: m}\n';

async function messagesOf(files: Record<string, string>): Promise<string[]> {
  try {
    desiredStateFor(await loadProject(writeProject({ 'p.yaml': PROVIDER, ...files })), 'dev', {});
    return [];
  } catch (error) {
    if (!(error instanceof ProblemsError)) throw error;
    return error.problems.map((problem) => `${problem.location?.line}:${problem.location?.col} ${problem.message}`);
  }
}

describe('an agent with a partial spec of its own is checked once merged', () => {
  const cases: Array<{ name: string; agent: string; expected: string[] }> = [
    {
      name: 'a bad value in an overlay',
      agent: 'kind: Agent\nname: a\nspec:\n  system: s\noverlays:\n  dev:\n    model: {provider: openai, model: m}\n    limits: {maxTurns: many}\n',
      expected: ['8:24 overlays.dev.limits.maxTurns: must be an integer, not a string'],
    },
    {
      name: 'a bad value in the spec of an agent that extends a template',
      agent: 'kind: Agent\nname: a\nextends: base\nspec:\n  system: s\n  limits: {maxTurns: many}\n',
      expected: ['6:22 spec.limits.maxTurns: must be an integer, not a string'],
    },
    {
      name: 'a required field neither the template nor the agent gives',
      agent: 'kind: Agent\nname: a\nextends: base\nspec:\n  description: d\n',
      expected: ['4:1 spec: missing required key "system" in spec'],
    },
  ];
  it.each(cases)('$name', async ({ agent, expected }) => {
    expect(await messagesOf({ 't.yaml': TEMPLATE, 'a.yaml': agent })).toEqual(expected);
  });
});
