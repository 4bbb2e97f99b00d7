// The exporter's defaults mirror the local control plane's table: whatever the server fills in
// for a field left out is dropped again on export.
import { describe, expect, it } from 'vitest';
import { withoutDefaults } from '../../src/export/prune.js';
import type { JsonObject, ResourceKind } from '../../src/model/resources.js';
import { DEFAULTS, fillDefaults } from '../../src/server/defaults.js';

type Table = Parameters<typeof fillDefaults>[1];

const minimalAgent: JsonObject = { name: 'Bot', model: { provider: 'openai', model: 'gpt-4o' }, system: 'Be brief.' };
// The API's minimal definition: always written back, even when empty (see ALWAYS_WRITTEN).
const minimalRequest: JsonObject = { ...minimalAgent, tools: [], policies: {}, limits: {} };

const cases: Array<[string, ResourceKind, Table, JsonObject, JsonObject]> = [
  ['agent without sandbox', 'agent', DEFAULTS.agentDefinition, minimalRequest, minimalRequest],
  ['agent with an empty sandbox keeps the sandbox', 'agent', DEFAULTS.agentDefinition, { ...minimalRequest, sandbox: {} }, { ...minimalRequest, sandbox: {} }],
  ['agent with a sandbox provider', 'agent', DEFAULTS.agentDefinition, { ...minimalRequest, sandbox: { provider: 'firecracker' } }, { ...minimalRequest, sandbox: { provider: 'firecracker' } }],
  ['connection', 'connection', DEFAULTS.connection, { url: 'https://x.test/mcp', auth: { type: 'svc-signed' } }, { url: 'https://x.test/mcp', auth: { type: 'svc-signed' } }],
  ['environment', 'environment', DEFAULTS.environment, { name: 'Staging' }, { name: 'Staging' }],
  ['apiKey', 'apiKey', DEFAULTS.apiKey, { scopes: ['read'] }, { scopes: ['read'] }],
  ['provider', 'provider', DEFAULTS.provider, { type: 'openai' }, { type: 'openai' }],
];

describe('export drops what the local control plane fills in', () => {
  it.each(cases)('%s', (_, kind, table, request, expected) => {
    const stored = fillDefaults(request, table) as JsonObject;
    expect(stored).not.toEqual(request); // the server did fill something in
    expect(withoutDefaults(kind, stored)).toEqual(expected);
  });

  it('keeps values that differ from the default, and set-valued defaults compare as sets', () => {
    const stored = fillDefaults({ ...minimalRequest, limits: { maxTurns: 20 }, compaction: { preserve: ['tool_results'] } }, DEFAULTS.agentDefinition) as JsonObject;
    expect(withoutDefaults('agent', stored)).toEqual({ ...minimalRequest, limits: { maxTurns: 20 } });
    expect(withoutDefaults('agent', { ...minimalAgent, limits: { maxTurns: 100, maxInputTokensPerSession: 5 } })).toEqual({ ...minimalAgent, limits: { maxInputTokensPerSession: 5 } });
  });

  it('drops nulls and keeps array elements in place, pruning their fields', () => {
    const spec: JsonObject = {
      ...minimalAgent,
      description: null,
      model: { provider: 'openai', model: 'gpt-4o', fallback: { models: [{ provider: 'a', model: 'b', reasoning: 'none' }, { provider: 'c', model: 'd', reasoning: 'high' }] } },
    };
    expect(withoutDefaults('agent', spec)).toEqual({
      ...minimalAgent,
      model: { provider: 'openai', model: 'gpt-4o', fallback: { models: [{ provider: 'a', model: 'b' }, { provider: 'c', model: 'd', reasoning: 'high' }] } },
    });
  });
});
