import { describe, expect, it } from 'vitest';
import { fenced, renderPlanMarkdown } from '../../src/render/markdown.js';
import { samplePlan } from './fixtures.js';

describe('renderPlanMarkdown', () => {
  it('renders counts, one line per change, details and prompt diffs', () => {
    const text = renderPlanMarkdown(samplePlan(), { target: 'https://api.example.test' });
    expect(text).toBe(
      [
        '### agentform plan: `staging`',
        '',
        'Target: https://api.example.test',
        '',
        '| Add | Change | Replace | Destroy | Unmanaged |',
        '|---:|---:|---:|---:|---:|',
        '| 1 | 1 | 1 | 0 | 2 |',
        '',
        '- ➕ `provider/openai` create',
        '- ✏️ `agent/support` update: `model.model`, `system`, `model.reasoning`',
        '- ♻️ `apiKey/ci` replace: `scopes`',
        '',
        '<details><summary><code>provider/openai</code> (create)</summary>',
        '',
        '```',
        '+ type: "openai"',
        '+ secret: (write-only)',
        '```',
        '',
        '</details>',
        '',
        '<details><summary><code>agent/support</code> (update)</summary>',
        '',
        '```',
        '~ model.model: "gpt-4o-mini" → "gpt-4o"',
        '~ model.reasoning: "high" → (server default)',
        '```',
        '',
        '`system`:',
        '',
        '```diff',
        '@@ -1,3 +1,3 @@',
        ' You are support.',
        '-Be nice.',
        '+Be kind.',
        ' Answer briefly.',
        '```',
        '',
        '</details>',
        '',
        '<details><summary><code>apiKey/ci</code> (replace)</summary>',
        '',
        '_scopes cannot be updated in place_',
        '',
        '```',
        '~ scopes: ["read"] → ["read","control"] (forces replacement)',
        '```',
        '',
        '</details>',
        '',
        'Not in the configuration (left alone): `secret/old-token`, `connection/legacy`',
        '',
        'Kept, not in the configuration (apply leaves these remote values as they are):',
        '',
        '```',
        'agent/triage: policies.toolCalls.byTool = {"shell":"allow"}',
        '```',
        '',
        '**Plan: 1 to add, 1 to change, 1 to replace, 0 to destroy.**',
      ].join('\n'),
    );
  });

  it('adds a Mermaid graph of what changes when asked', () => {
    const text = renderPlanMarkdown(samplePlan(), { graph: true });
    expect(text).toContain(
      [
        '```mermaid',
        'flowchart LR',
        '  n0["+ provider/openai"]:::create',
        '  n1["~ agent/support"]:::update',
        '  n2["-/+ apiKey/ci"]:::replace',
        '  n1 --> n0',
      ].join('\n'),
    );
  });

  it('fences content containing backticks with a longer fence', () => {
    expect(fenced('a ``` b')).toBe('````\na ``` b\n````');
  });
});
