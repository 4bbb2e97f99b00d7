// What apply leaves, as the safety review sees it: configured fields over remote values.
import { describe, expect, it } from 'vitest';
import { effectiveState } from '../../src/engine/effective-state.js';
import { actual, actualState, desired } from './builders.js';

describe('effectiveState', () => {
  it('keeps remote fields the configuration leaves out, and unmanaged resources the plan does not delete', () => {
    const want = [desired('agent', 'support', { policies: { toolCalls: { default: 'allow' } } })];
    const have = actualState([
      actual('agent', 'support', { policies: { toolCalls: { hook: { connection: 'gate' }, byTool: { rm: 'allow' } } } }),
      actual('agent', 'stray', { tools: [] }),
      actual('agent', 'pruned', { tools: [] }),
    ]);
    const result = effectiveState(want, have, {
      changes: [{ address: 'agent/pruned', kind: 'agent', name: 'pruned', action: 'delete', fields: [], dependsOn: [] }],
    });
    expect(result.map((resource) => resource.name)).toEqual(['support', 'stray']);
    expect(result[0]?.spec).toEqual({ policies: { toolCalls: { hook: { connection: 'gate' }, byTool: { rm: 'allow' }, default: 'allow' } } });
  });

  it('a configured whole-value map replaces the remote one', () => {
    const want = [desired('agent', 'support', { policies: { toolCalls: { byTool: {} } } })];
    const have = actualState([actual('agent', 'support', { policies: { toolCalls: { byTool: { rm: 'allow' } } } })]);
    expect(effectiveState(want, have, { changes: [] })[0]?.spec).toEqual({ policies: { toolCalls: { byTool: {} } } });
  });
});
