// What the client checks in an answer before handing it on: the kind (list or object) and the
// types of the fields it relies on, when present. The message names the first mismatch by its path.
import { describe, expect, it } from 'vitest';
import { ANSWER_SHAPES, shapeMismatch } from '../../src/api/answer-shape.js';
import { RPC_NAMES, type Rpc } from '../../src/api/operations.js';

describe('shapeMismatch', () => {
  it.each<[string, Rpc, unknown, string | undefined]>([
    ['an empty list', 'agents.list', [], undefined],
    ['items with their fields', 'agents.list', [{ slug: 'a', agentId: 'ag_1', version: 2, definition: {} }], undefined],
    ['items without the fields (none is required)', 'agents.list', [{}], undefined],
    ['unknown fields', 'environments.get', { id: 'env_1', extra: [1, 2] }, undefined],
    ['an object for a list', 'agents.list', { items: 5 }, 'the answer is an object, not a list'],
    ['a list for an object', 'organizations.get', [], 'the answer is a list, not an object'],
    ['null for an object', 'organizations.get', null, 'the answer is null, not an object'],
    ['a string for a list', 'secrets.list', 'ok', 'the answer is a string, not a list'],
    ['an item that is not an object', 'providers.list', [{ id: 'p' }, 3], '[1] is a number, not an object'],
    ['a field of another type', 'agents.list', [{ slug: 'a' }, { slug: 7 }], '[1].slug is a number, not a string'],
    ['a nested field', 'connections.list', [{ id: 'c', auth: { type: null } }], '[0].auth.type is null, not a string'],
    ['a list inside an object', 'connections.test', { tools: {} }, 'tools is an object, not a list'],
    ['a list of strings', 'apiKeys.create', { key: { scopes: ['read', 1] }, token: 't' }, 'key.scopes[1] is a number, not a string'],
    ['a number field', 'usage.keys', [{ totals: { costUsd: '1.5' } }], '[0].totals.costUsd is a string, not a number'],
    ['anything for an operation without an answer', 'agents.delete', 'whatever', undefined],
  ])('%s', (_, rpc, answer, expected) => {
    expect(shapeMismatch(answer, ANSWER_SHAPES[rpc])).toBe(expected);
  });

  it('has a shape for every operation', () => {
    expect(Object.keys(ANSWER_SHAPES).sort()).toEqual([...RPC_NAMES].sort());
  });
});
