// Agent templates end to end (issue 48): the real CLI against the local control plane of the
// project (`url: local`), under the profile of the vitest project. A fleet of 200 agents from 3
// templates, generated into a temporary directory, plans and applies; a changed template changes
// every agent that extends it; the mistakes are located errors.
import { mkdtempSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const ROOT = 'version: 1\nenvironments:\n  dev:\n    url: local\n';
const PROVIDER = 'kind: Provider\nname: openai\nspec:\n  type: openai\n  secret: ${env:OPENAI_API_KEY:-sk-test-provider}\n';

// base ← support, base ← research: three templates, two levels.
const TEMPLATES = `kind: AgentTemplate
name: base
params:
  model: {default: gpt-4o-mini}
spec:
  model: {provider: openai, model: "\${param:model}"}
  tools: []
  policies: {toolCalls: {default: deny}, decisions: {onExpire: deny}}
  limits: {maxTurns: 10, maxInputTokensPerSession: 100000}
---
kind: AgentTemplate
name: support
extends: base
params:
  team: {description: the team the agent answers for}
spec:
  description: "Support for \${param:team}"
  system: \${file:prompts/support.md}
---
kind: AgentTemplate
name: research
extends: base
params:
  topic: {}
  turns: {default: 20}
spec:
  description: "Research on \${param:topic}"
  system: "You research."
  limits: {maxTurns: "\${param:turns}"}
`;

const AGENTS = 200;

/** Agent i: even ones support a team, odd ones research a topic; every tenth sets a field of its own. */
function agent(index: number): string {
  const name = `agent-${String(index).padStart(3, '0')}`;
  const own = index % 10 === 0 ? 'spec:\n  limits: {maxTurns: 3}\n' : '';
  return index % 2 === 0
    ? `kind: Agent\nname: ${name}\nextends: support\nparams: {team: team-${index % 7}}\n${own}`
    : `kind: Agent\nname: ${name}\nextends: research\nparams: {topic: topic-${index}${index % 3 === 0 ? ', turns: 7' : ''}}\n${own}`;
}

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A project in a temporary directory: root, provider, templates, and the agents in 4 files. */
async function fleet(templates = TEMPLATES): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'agentform-templates-'));
  dirs.push(dir);
  await writeFile(join(dir, 'agentform.yaml'), ROOT);
  await writeFile(join(dir, 'providers.yaml'), PROVIDER);
  await writeFile(join(dir, 'templates.yaml'), templates);
  await mkdir(join(dir, 'prompts'));
  await writeFile(join(dir, 'prompts', 'support.md'), 'You help customers.\n');
  for (let file = 0; file < 4; file++) {
    const indexes = Array.from({ length: AGENTS / 4 }, (_, position) => file * (AGENTS / 4) + position);
    await writeFile(join(dir, `agents-${file}.yaml`), indexes.map(agent).join('---\n'));
  }
  return dir;
}

interface PlanJson {
  summary: { add: number; change: number; destroy: number };
  changes: Array<{ address: string; action: string; fields: Array<{ path: string; before?: unknown; after?: unknown; source?: string }> }>;
}

async function planJson(dir: string): Promise<PlanJson> {
  const plan = await runCli(['plan', dir, '--json']);
  expect(plan.code, plan.stderr).toBe(0);
  return JSON.parse(plan.stdout) as PlanJson;
}

describe('a fleet of agents from templates', () => {
  it('plans and applies 200 agents from 3 templates, and a changed template changes each agent that extends it', async () => {
    const dir = await fleet();
    const first = await planJson(dir);
    expect(first.summary.add).toBe(AGENTS + 1);
    const configured = (address: string) =>
      Object.fromEntries((first.changes.find((change) => change.address === address)?.fields ?? []).map((field) => [field.path, field.after]));
    expect(configured('agent/agent-002')).toMatchObject({
      'model.model': 'gpt-4o-mini',
      description: 'Support for team-2',
      system: 'You help customers.\n',
      'limits.maxTurns': 10,
      'policies.toolCalls.default': 'deny',
    });
    expect(configured('agent/agent-003')).toMatchObject({ description: 'Research on topic-3', 'limits.maxTurns': 7 });
    expect(configured('agent/agent-005')).toMatchObject({ 'limits.maxTurns': 20 });
    expect(configured('agent/agent-010')).toMatchObject({ 'limits.maxTurns': 3, description: 'Support for team-3' });

    const apply = await runCli(['apply', dir, '--auto-approve']);
    expect(apply.code, apply.stderr).toBe(0);
    expect((await planJson(dir)).summary).toMatchObject({ add: 0, change: 0, destroy: 0 });

    // The base template's limit changes: every agent that does not set its own maxTurns (and is
    // not given one by research's parameter) changes, and only in that field.
    const changed = TEMPLATES.replace('maxTurns: 10,', 'maxTurns: 12,');
    expect(changed).not.toBe(TEMPLATES);
    await writeFile(join(dir, 'templates.yaml'), changed);
    const second = await planJson(dir);
    const expected = Array.from({ length: AGENTS }, (_, index) => index).filter((index) => index % 2 === 0 && index % 10 !== 0);
    expect(second.summary).toMatchObject({ add: 0, change: expected.length, destroy: 0 });
    const updates = second.changes.filter((change) => change.action === 'update');
    expect(updates.map((change) => change.address).sort()).toEqual(expected.map((index) => `agent/agent-${String(index).padStart(3, '0')}`));
    for (const update of updates) {
      expect(update.fields).toEqual([{ path: 'limits.maxTurns', before: 10, after: 12, source: 'templates.yaml:9:22' }]);
    }
    const text = await runCli(['plan', dir, '--no-color']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/agent\/agent-002 \(update in place\)\n\s+~ limits\.maxTurns: 10 → 12\s+# templates\.yaml:9:22/);
  }, 120_000);
});

describe('template mistakes are located errors', () => {
  const cases: Array<{ name: string; templates?: string; agents: string; expected: string }> = [
    {
      name: 'an unknown template',
      agents: 'kind: Agent\nname: a\nextends: suport\nparams: {team: x}\n',
      expected: 'agents-x.yaml:3:10: extends: unknown template "suport"; did you mean "support"?',
    },
    {
      name: 'an unknown parameter',
      agents: 'kind: Agent\nname: a\nextends: support\nparams: {team: x, tem: y}\n',
      expected: 'agents-x.yaml:4:19: params.tem: unknown parameter "tem" of template "support" (it takes team, model); did you mean "team"?',
    },
    {
      name: 'a missing parameter',
      agents: 'kind: Agent\nname: a\nextends: support\n',
      expected: 'agents-x.yaml:3:10: extends: template "support" needs parameter "team": pass it under params',
    },
    {
      name: 'a cycle',
      templates: 'kind: AgentTemplate\nname: x\nextends: y\nspec: {}\n---\nkind: AgentTemplate\nname: y\nextends: x\nspec: {}\n',
      agents: 'kind: Agent\nname: a\nextends: x\n',
      expected: 'extra.yaml:8:10: extends: templates extend each other in a cycle: x → y → x',
    },
    {
      name: 'a parameter no template declares',
      templates: 'kind: AgentTemplate\nname: x\nspec: {description: "${param:who}"}\n',
      agents: 'kind: Agent\nname: a\nextends: x\n',
      expected: 'extra.yaml:3:21: spec.description: unknown parameter "who": declare it under params of this template',
    },
    {
      name: "a parameter's value of the wrong type where the template puts it (located at the value)",
      agents: 'kind: Agent\nname: a\nextends: research\nparams: {topic: t, turns: many}\n',
      expected: 'agents-x.yaml:4:27: params.turns: must be an integer, not a string',
    },
    {
      name: "a template's own value the agent's parameter does not give (located in the template, naming the agent)",
      templates: 'kind: AgentTemplate\nname: x\nextends: base\nspec: {system: s, limits: {maxTurns: many}}\n',
      agents: 'kind: Agent\nname: a\nextends: x\n',
      expected: 'extra.yaml:4:38: spec.limits.maxTurns: must be an integer, not a string (agent "a")',
    },
    {
      name: '${param:} in an agent',
      agents: 'kind: Agent\nname: a\nextends: research\nparams: {topic: x}\nspec: {description: "${param:topic}"}\n',
      expected: 'agents-x.yaml:5:21: spec.description: ${param:NAME} is only filled in inside the spec of an AgentTemplate',
    },
    {
      // The agent's own spec lacks system too: the merged spec is checked all the same.
      name: 'a required field that neither the templates nor the agent gives',
      agents: 'kind: Agent\nname: a\nextends: support\nparams: {team: x}\nspec: {description: d}\n',
      expected: 'agents-x.yaml:5:1: spec: missing required key "system" in spec',
    },
  ];
  it.each(cases)('$name', async ({ templates, agents, expected }) => {
    const dir = mkdtempSync(join(tmpdir(), 'agentform-templates-'));
    dirs.push(dir);
    await writeFile(join(dir, 'agentform.yaml'), ROOT);
    await writeFile(join(dir, 'providers.yaml'), PROVIDER);
    await writeFile(join(dir, 'templates.yaml'), TEMPLATES.replace('  system: ${file:prompts/support.md}\n', ''));
    if (templates) await writeFile(join(dir, 'extra.yaml'), templates);
    await writeFile(join(dir, 'agents-x.yaml'), agents);
    for (const command of ['validate', 'plan']) {
      const result = await runCli([command, dir], { cwd: dir });
      expect(result.code, result.stderr).toBe(1);
      expect(`${result.stdout}${result.stderr}`).toContain(expected);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      // One mistake, one problem: nothing follows from it (a half-filled spec checked, say).
      expect(`${result.stdout}${result.stderr}`).toMatch(/\b1 (error|problem)\b/);
    }
  });

  it('a template is not a resource: export writes plain agents', async () => {
    const dir = await fleet();
    expect((await runCli(['apply', dir, '--auto-approve'])).code).toBe(0);
    const out = mkdtempSync(join(tmpdir(), 'agentform-templates-export-'));
    dirs.push(out);
    const exported = await runCli(['export', '-C', dir, '--out', out]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(`${exported.stdout}${exported.stderr}`).not.toContain('AgentTemplate');
  }, 120_000);
});
