import { describe, expect, it } from 'vitest';
import { unknownFieldsNotice, withKnownDefinition } from '../../src/pipeline/known-definition.js';
import type { AgentVersionWithSlug } from '../../src/model/api.js';

describe('withKnownDefinition', () => {
  it('leaves out the fields a server reports that the agent schema does not know, and names them', () => {
    const version = {
      slug: 'bot',
      agentId: 'a1',
      version: 3,
      definition: {
        name: 'bot',
        system: 'Be brief.',
        model: { provider: 'openai', model: 'gpt-4o-mini', resolvedAt: '2026-01-01T00:00:00Z', serverRevision: 7 },
        tools: [],
      },
    } as unknown as AgentVersionWithSlug;
    const known = withKnownDefinition(version);
    expect(known.version.definition).toEqual({ name: 'bot', system: 'Be brief.', model: { provider: 'openai', model: 'gpt-4o-mini' }, tools: [] });
    expect(known.unknown).toEqual(['model.resolvedAt', 'model.serverRevision']);
    expect(known.version.version).toBe(3);
  });

  it('names a few left-out fields, then a count', () => {
    expect(unknownFieldsNotice('staging', [])).toBeUndefined();
    expect(unknownFieldsNotice('staging', ['a', 'b', 'c', 'd', 'e'])).toBe(
      "notice: staging: not copied, fields agentform does not know (the server's own): a, b, c and 2 more",
    );
  });
});
