import { describe, expect, it } from 'vitest';
import { managedPart, mergeForWrite, restrictToShape } from '../../src/engine/merge.js';
import { rulesFor } from '../../src/engine/rules.js';
import type { JsonObject } from '../../src/model/resources.js';

type Case = { name: string; desired: JsonObject; remote: JsonObject; nulls?: 'omit' | 'send'; expected: JsonObject };

const cases: Case[] = [
  {
    name: 'unmentioned fields keep their remote value',
    desired: { system: 'b' },
    remote: { system: 'a', sandbox: { scope: 'tree' }, identity: { required: true } },
    expected: { system: 'b', sandbox: { scope: 'tree' }, identity: { required: true } },
  },
  {
    name: 'objects merge key by key',
    desired: { sandbox: { tools: { allow: ['grep'] } } },
    remote: { sandbox: { tools: { preset: 'x', deny: ['rm'] } } },
    expected: { sandbox: { tools: { preset: 'x', deny: ['rm'], allow: ['grep'] } } },
  },
  {
    name: 'unknown remote fields are sent back',
    desired: { model: { model: 'b' } },
    remote: { model: { model: 'a', serverRevision: 7 }, futureField: { x: 1 } },
    expected: { model: { model: 'b', serverRevision: 7 }, futureField: { x: 1 } },
  },
  {
    name: 'byTool is a whole value',
    desired: { policies: { toolCalls: { byTool: { a: 'ask' } } } },
    remote: { policies: { toolCalls: { default: 'allow', byTool: { a: 'allow', shell: 'allow' } } } },
    expected: { policies: { toolCalls: { default: 'allow', byTool: { a: 'ask' } } } },
  },
  {
    name: 'an empty map removes every entry',
    desired: { policies: { toolCalls: { byTool: {} } } },
    remote: { policies: { toolCalls: { byTool: { shell: 'allow' } } } },
    expected: { policies: { toolCalls: { byTool: {} } } },
  },
  {
    name: 'arrays of scalars are whole values',
    desired: { sandbox: { tools: { deny: [] } } },
    remote: { sandbox: { tools: { deny: ['rm'] } } },
    expected: { sandbox: { tools: { deny: [] } } },
  },
  {
    name: 'array elements merge with the remote element at the same position',
    desired: {
      model: {
        fallback: {
          models: [
            { provider: 'p', model: 'x' },
            { provider: 'q', model: 'y' },
          ],
        },
      },
    },
    remote: { model: { fallback: { models: [{ provider: 'p', model: 'm', reasoning: 'high' }] } } },
    expected: {
      model: {
        fallback: {
          models: [
            { provider: 'p', model: 'x', reasoning: 'high' },
            { provider: 'q', model: 'y' },
          ],
        },
      },
    },
  },
  {
    name: 'extra remote elements are dropped',
    desired: { tools: [{ type: 'builtin', name: 'a' }] },
    remote: {
      tools: [
        { type: 'builtin', name: 'a' },
        { type: 'builtin', name: 'b' },
      ],
    },
    expected: { tools: [{ type: 'builtin', name: 'a' }] },
  },
  {
    name: 'null is left out (omit)',
    desired: { model: { reasoning: null } },
    remote: { model: { model: 'm', reasoning: 'high' } },
    expected: { model: { model: 'm' } },
  },
  {
    name: 'null is sent as null (send)',
    nulls: 'send',
    desired: { group: null, spend: { dailyUsd: null } },
    remote: { group: 'g', spend: { dailyUsd: 5, tokensPerMonth: 9 } },
    expected: { group: null, spend: { dailyUsd: null, tokensPerMonth: 9 } },
  },
  {
    name: 'null inside array elements is left out even when sending nulls',
    nulls: 'send',
    desired: { list: [{ a: null, b: 1 }] },
    remote: { list: [{ a: 2, b: 0 }] },
    expected: { list: [{ b: 1 }] },
  },
  { name: 'without a remote object: the configured fields', desired: { a: { b: 1, c: null } }, remote: {}, expected: { a: { b: 1 } } },
];

describe('mergeForWrite', () => {
  it.each(cases)('$name', ({ desired, remote, nulls, expected }) => {
    const before = structuredClone(remote);
    expect(mergeForWrite(desired, remote, rulesFor('agent'), nulls ?? 'omit')).toEqual(expected);
    expect(remote).toEqual(before);
  });

  it('restrictToShape keeps the fields a request knows, nested ones included', () => {
    const shape = { name: true, spend: { dailyUsd: true } } as const;
    expect(restrictToShape({ name: 'n', kind: 'k', spend: { dailyUsd: 1, serverRevision: 7 }, region: 'r' }, shape)).toEqual({
      name: 'n',
      spend: { dailyUsd: 1 },
    });
    expect(restrictToShape({ spend: null }, shape)).toEqual({ spend: null });
  });
});

/** The part of each case's remote object that its write replaces (everything else the merge keeps). */
const managed: Record<string, JsonObject> = {
  'unmentioned fields keep their remote value': { system: 'a' },
  'objects merge key by key': { sandbox: { tools: {} } },
  'unknown remote fields are sent back': { model: { model: 'a' } },
  'byTool is a whole value': { policies: { toolCalls: { byTool: { a: 'allow', shell: 'allow' } } } },
  'an empty map removes every entry': { policies: { toolCalls: { byTool: { shell: 'allow' } } } },
  // A set, in a canonical order (its members' canonical JSON, sorted).
  'arrays of scalars are whole values': { sandbox: { tools: { deny: ['"rm"'] } } },
  'array elements merge with the remote element at the same position': { model: { fallback: { models: [{ provider: 'p', model: 'm' }] } } },
  'extra remote elements are dropped': {
    tools: [
      { type: 'builtin', name: 'a' },
      { type: 'builtin', name: 'b' },
    ],
  },
  'null is left out (omit)': { model: { reasoning: 'high' } },
  'null is sent as null (send)': { group: 'g', spend: { dailyUsd: 5 } },
  'null inside array elements is left out even when sending nulls': { list: [{ a: 2, b: 0 }] },
  'without a remote object: the configured fields': {},
};

describe('managedPart: what the write replaces, the complement of what mergeForWrite keeps', () => {
  it.each(cases)('$name', ({ name, desired, remote }) => {
    const before = structuredClone(remote);
    expect(managedPart(desired, remote, rulesFor('agent'))).toEqual(managed[name]);
    expect(remote).toEqual(before);
  });

  it('a set compares in any order; an array of scalars that is not a set, in order', () => {
    const rules = rulesFor('agent');
    const desired = { sandbox: { tools: { allow: ['a'] } }, compaction: { keep: ['x'] } };
    const one = managedPart(desired, { sandbox: { tools: { allow: ['b', 'a'] } }, compaction: { keep: ['y', 'x'] } }, rules);
    const other = managedPart(desired, { sandbox: { tools: { allow: ['a', 'b'] } }, compaction: { keep: ['x', 'y'] } }, rules);
    expect(one.sandbox).toEqual(other.sandbox);
    expect(one.compaction).not.toEqual(other.compaction);
  });
});
