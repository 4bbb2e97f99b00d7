// The strict-mode section of the plan: derived entries apart from the changes, in text, Markdown
// and JSON (validated against schemas/plan.schema.json).
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { DerivedToolPolicy } from '../../src/model/tool-lock.js';
import { renderPlanJson } from '../../src/render/json.js';
import { renderPlanMarkdown } from '../../src/render/markdown.js';
import { derivedPolicyTextBlock } from '../../src/render/strict-tools.js';
import { renderPlanText } from '../../src/render/text.js';
import { samplePlan } from './fixtures.js';

const derived: DerivedToolPolicy[] = [
  {
    agent: 'support',
    default: 'deny',
    userDefault: 'allow',
    entries: [{ tool: 'echo', decision: 'allow', from: 'connection tools' }],
    unlockedConnections: ['crm'],
    denied: [{ tool: 'wipe', decision: 'deny', from: 'connection tools' }],
    collisions: [{ tool: 'current_time', decision: 'allow', from: 'connection tools' }],
  },
];

describe('derived tool policies in the plan', () => {
  it('text: a section of its own, the derived default, entries, denials and unlocked connections', () => {
    expect(derivedPolicyTextBlock(derived)).toEqual([
      'Tool policy derived from agentform.lock.yaml (strictTools; not written in the configuration):',
      '  agent/support: default = deny, any tool not listed is refused (configuration: allow)',
      '    + byTool.echo = allow  # connection tools, in the lock',
      '    - wipe: deny  # connection tools serves it, the lock does not record it (agentform lock --update to allow)',
      '    ! current_time: allow  # connection tools serves it unlocked, named like a derived entry (byTool is by bare tool name)',
      '    ! connection crm has no lock entry: all its tools are denied (run agentform lock)',
      '',
    ]);
    expect(derivedPolicyTextBlock(undefined)).toEqual([]);
    expect(renderPlanText({ ...samplePlan(), derivedToolPolicies: derived })).toContain('+ byTool.echo = allow');
    expect(renderPlanText(samplePlan())).not.toContain('derived from agentform.lock.yaml');
  });

  it('Markdown carries the same lines', () => {
    const markdown = renderPlanMarkdown({ ...samplePlan(), derivedToolPolicies: derived }, { target: 'local' });
    expect(markdown).toContain('Tool policy derived from agentform.lock.yaml');
    expect(markdown).toContain('- wipe: deny');
  });

  it('JSON: derivedToolPolicies validates against schemas/plan.schema.json', () => {
    const schema = JSON.parse(readFileSync(new URL('../../schemas/plan.schema.json', import.meta.url), 'utf8'));
    const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
    const document = JSON.parse(renderPlanJson({ ...samplePlan(), derivedToolPolicies: derived }));
    expect(document.derivedToolPolicies).toEqual(derived);
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    document.derivedToolPolicies[0].default = 'allow';
    expect(validate(document)).toBe(false);
  });
});
