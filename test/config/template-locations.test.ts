// Where a templated agent's values come from, with the template and the agent in different
// directories: `${file:}` written in a template is relative to the template's file; a parameter's
// value is the agent's (its `${file:}` relative to the agent's file, its problems located at its
// `params:` entry), or, when it is a default, the declaring template's.
import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { desiredStateFor, loadProject } from '../../src/config/index.js';
import { ProblemsError } from '../../src/errors.js';
import { writeProject } from './helpers.js';

const TEMPLATES = `kind: AgentTemplate
name: base
params:
  prompt: {default: "\${file:prompts/template.md}"}
  team: {default: all}
  turns: {default: 10}
spec:
  model: {provider: openai, model: gpt-4o}
  system: \${param:prompt}
  description: "Support for \${param:team}"
  limits: {maxTurns: "\${param:turns}"}
---
kind: AgentTemplate
name: fixed
spec:
  model: {provider: openai, model: gpt-4o}
  system: \${file:prompts/template.md}
`;

const AGENT_FILE = 'agents/team/a.yaml';

function project(agentParams: string, template = 'base'): string {
  return writeProject({
    'providers.yaml': 'kind: Provider\nname: openai\nspec:\n  type: openai\n',
    'templates/base.yaml': TEMPLATES,
    'templates/prompts/template.md': 'the template prompt',
    [AGENT_FILE]: agentText(agentParams, template),
    'agents/team/prompts/agent.md': 'the agent prompt',
  });
}

function agentText(agentParams: string, template: string): string {
  return `kind: Agent\nname: a\nextends: ${template}\n${agentParams ? `params:\n  ${agentParams}\n` : ''}`;
}

/** The problems of loading and building the project, as `file:line:col message` (the file relative to the project). */
async function problemsOf(dir: string): Promise<string[]> {
  try {
    desiredStateFor(await loadProject(dir), 'dev', {});
    return [];
  } catch (error) {
    if (!(error instanceof ProblemsError)) throw error;
    return error.problems.map((problem) => {
      const file = relative(dir, resolve(problem.location?.file ?? ''))
        .split('\\')
        .join('/');
      return `${file}:${problem.location?.line}:${problem.location?.col} ${problem.message}`;
    });
  }
}

describe('${file:} in a templated agent', () => {
  const cases: Array<{ name: string; template?: string; params: string; system: string }> = [
    { name: 'written in the template: relative to the template', template: 'fixed', params: '', system: 'the template prompt' },
    {
      name: "in a value the agent passes: relative to the agent's file",
      params: 'prompt: ${file:prompts/agent.md}',
      system: 'the agent prompt',
    },
    { name: "in a parameter's default: relative to the declaring template", params: '', system: 'the template prompt' },
  ];
  it.each(cases)('$name', async ({ template, params, system }) => {
    const state = desiredStateFor(await loadProject(project(params, template)), 'dev', {});
    const agent = state.resources.find((resource) => resource.kind === 'agent' && resource.name === 'a');
    expect(agent?.spec.system).toBe(system);
  });
});

describe("a problem in a parameter's value is located at the agent's params entry", () => {
  // The params entry is on line 5, its value after "  KEY: ".
  const at = (key: string) => `${AGENT_FILE}:5:${`  ${key}: `.length + 1}`;
  const cases: Array<{ name: string; params: string; expected: string }> = [
    {
      name: 'a value of the wrong type where the template puts it',
      params: 'turns: many',
      expected: `${at('turns')} params.turns: must be an integer, not a string`,
    },
    {
      name: 'a null inside text',
      params: 'team: null',
      expected: `${at('team')} params.team: parameter "team" is null: only a value that is nothing but \${param:team} can be null (used in template "base" at spec.description)`,
    },
    {
      name: 'a list inside text',
      params: 'team: [a, b]',
      expected: `${at('team')} params.team: parameter "team" is a list: only a value that is nothing but \${param:team} can take it (used in template "base" at spec.description)`,
    },
    {
      name: 'a ${file:} inside text (it would be read relative to the template)',
      params: 'team: ${file:prompts/agent.md}',
      expected: `${at('team')} params.team: parameter "team" reads a file (\${file:}): only a value that is nothing but \${param:team} can (used in template "base" at spec.description)`,
    },
    {
      name: 'a ${file:} that does not exist',
      params: 'prompt: ${file:prompts/missing.md}',
      expected: `${at('prompt')} params.prompt: file not found: prompts/missing.md (\${file:} paths are relative to the YAML file)`,
    },
  ];
  it.each(cases)('$name', async ({ params, expected }) => {
    expect(await problemsOf(project(params))).toEqual([expected]);
  });
});

// The key a template fills with `${param:NAME}` is the template's own: a misspelt one is the
// template's mistake, reported once there, whatever value an agent passes.
describe('a problem with the key a parameter fills is located at the template', () => {
  it.each([
    ['the agent passes the value', 'extra: custom'],
    ['the default gives it', ''],
  ])('%s', async (_name, params) => {
    const misspelt = TEMPLATES.replace(
      '  description: "Support for ${param:team}"\n',
      '  description: "Support for ${param:team}"\n  sytem: ${param:extra}\n',
    ).replace('  turns: {default: 10}\n', '  turns: {default: 10}\n  extra: {default: fine}\n');
    const dir = writeProject({
      'providers.yaml': 'kind: Provider\nname: openai\nspec:\n  type: openai\n',
      'templates/base.yaml': misspelt,
      'templates/prompts/template.md': 'the template prompt',
      [AGENT_FILE]: agentText(params, 'base'),
    });
    expect(await problemsOf(dir)).toEqual(['templates/base.yaml:12:3 spec.sytem: unknown key "sytem" in spec; did you mean "system"? (agent "a")']);
  });
});
