// markTemplateSources: a plan's field change an agent's template gave points at the template of
// the agent's declaration in the planned environment; the agent's name is never a template's.
import { describe, expect, it } from 'vitest';
import { loadProject } from '../../src/config/index.js';
import { markTemplateSources } from '../../src/pipeline/template-sources.js';
import type { FieldChange, Plan } from '../../src/model/resources.js';
import { writeProject } from '../config/helpers.js';

const ROOT = 'version: 1\nenvironments:\n  dev:\n    url: local\n  prod:\n    url: local\n';
const PROVIDER = 'kind: Provider\nname: openai\nspec:\n  type: openai\n  secret: ${env:OPENAI_API_KEY:-sk-test}\n';
const template = (name: string, description: string) =>
  `kind: AgentTemplate\nname: ${name}\nspec:\n  model: {provider: openai, model: gpt-4o-mini}\n  system: Be brief.\n  description: ${description}\n`;
// The agent is declared once per environment, each declaration extending its own template.
const AGENTS =
  'kind: Agent\nname: bot\nenvironments: [dev]\nextends: small\n---\nkind: Agent\nname: bot\nenvironments: [prod]\nextends: large\nspec:\n  limits: {maxTurns: 5}\n';

function planOf(environment: string, paths: string[]): Plan {
  const fields: FieldChange[] = paths.map((path) => ({ path, after: 'x' }));
  return { environment, changes: [{ kind: 'agent', name: 'bot', action: 'update', fields }] } as unknown as Plan;
}

describe('markTemplateSources', () => {
  const cases: Array<{ environment: string; path: string; source: string | undefined }> = [
    { environment: 'dev', path: 'description', source: 'small.yaml:6:16' },
    { environment: 'prod', path: 'description', source: 'large.yaml:6:16' },
    { environment: 'prod', path: 'limits.maxTurns', source: undefined },
    // dev's declaration writes no spec: its name is still its own.
    { environment: 'dev', path: 'name', source: undefined },
    { environment: 'prod', path: 'name', source: undefined },
  ];
  it.each(cases)('$environment $path → $source', async ({ environment, path, source }) => {
    const dir = writeProject({
      'agentform.yaml': ROOT,
      'providers.yaml': PROVIDER,
      'small.yaml': template('small', 'small one'),
      'large.yaml': template('large', 'large one'),
      'agents.yaml': AGENTS,
    });
    const plan = planOf(environment, [path]);
    markTemplateSources(plan, await loadProject(dir), environment);
    expect(plan.changes[0]?.fields[0]?.source).toBe(source);
  });
});
