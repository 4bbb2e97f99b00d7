// ignore rules in agentform.yaml: an expired rule is an error naming it, located at its `until`;
// a rule that names nothing declared is a warning; the schema requires a reason.
import { describe, expect, it } from 'vitest';
import { validateProject } from '../../src/config/index.js';
import { writeProject } from './helpers.js';

const AGENT =
  'kind: Agent\nname: support\nspec:\n  model: {provider: openai, model: gpt-4o}\n  system: You help.\n  tools: [{type: builtin, name: current_time}]\n';
const KEY = 'kind: ApiKey\nname: ci\nspec:\n  scopes: [read]\n  tokenFile: .agentform/ci.token\n';
const PROVIDER = 'kind: Provider\nname: openai\nspec:\n  type: openai\n';
const root = (ignore: string) => `version: 1\nenvironments:\n  dev:\n    url: local\nignore:\n${ignore}`;

async function problemsOf(ignore: string, today = '2026-11-28'): Promise<string[]> {
  const dir = writeProject({ 'agentform.yaml': root(ignore), 'agents.yaml': AGENT, 'providers.yaml': PROVIDER, 'keys.yaml': KEY });
  const problems = await validateProject(dir, { today });
  return problems.map((problem) => `${problem.severity} ${problem.location?.file}:${problem.location?.line}:${problem.location?.col} ${problem.message}`);
}

describe('ignore rules in agentform.yaml', () => {
  it.each<[string, string, string[]]>([
    ['a rule without until', '  - {resource: agent/support, field: system, reason: PM edits}\n', []],
    ['a rule until today', '  - {resource: agent/support, field: system, reason: PM edits, until: 2026-11-28}\n', []],
    [
      'a rule past its until',
      '  - resource: agent/support\n    field: system\n    reason: PM edits\n    until: 2026-11-27\n',
      [
        'error agentform.yaml:9:12 ignore rule "agent/support system" expired on 2026-11-27 (PM edits): remove it to manage the field again, or move its until date if the exception still holds',
      ],
    ],
    [
      'a rule naming no declared resource',
      '  - {resource: agent/suport, field: system, reason: PM edits}\n',
      ['warning agentform.yaml:6:5 ignore rule "agent/suport system" matches no declared resource with that field: it ignores nothing'],
    ],
    [
      'a rule naming no declared field',
      '  - {resource: agent/*, field: description, reason: PM edits}\n',
      ['warning agentform.yaml:6:5 ignore rule "agent/* description" matches no declared resource with that field: it ignores nothing'],
    ],
    ['an index into an array compared element by element', '  - {resource: agent/support, field: "tools[0]", reason: hand-tuned}\n', []],
    [
      'an index into an array compared as a whole',
      '  - resource: apiKey/ci\n    field: scopes[0]\n    reason: ops\n',
      [
        'error agentform.yaml:7:12 ignore rule "apiKey/ci scopes[0]": scopes is compared as a whole list, so plan never names one element of it and an index matches nothing: ignore the whole field scopes',
      ],
    ],
  ])('%s', async (_name, ignore, expected) => {
    expect(await problemsOf(ignore)).toEqual(expected);
  });

  it('requires a reason', async () => {
    const problems = await problemsOf('  - {resource: agent/support, field: system}\n');
    expect(problems).toEqual([expect.stringMatching(/^error agentform\.yaml:6:\d+ .*reason/)]);
  });

  it('refuses a date that is not YYYY-MM-DD', async () => {
    const problems = await problemsOf('  - {resource: agent/support, field: system, reason: x, until: next week}\n');
    expect(problems).toEqual([expect.stringMatching(/^error agentform\.yaml:6:\d+ .*YYYY-MM-DD/)]);
  });
});
