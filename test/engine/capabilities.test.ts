// What an agent can do: decisions, effects from the lock, sandbox allow/deny, connections without
// a lock entry, subagents (transitively, cycle-safe), and the diff between two states.
import { describe, expect, it } from 'vitest';
import { computeCapabilities, decisionFor } from '../../src/engine/capabilities.js';
import { diffCapabilities } from '../../src/engine/capability-diff.js';
import type { JsonObject } from '../../src/model/resources.js';
import { GITHUB_SURFACE } from './policy/builders.js';

const surfaces = { github: GITHUB_SURFACE };
const agent = (name: string, spec: JsonObject) => ({ name, spec });
const tools = (map: ReturnType<typeof computeCapabilities>, name: string) =>
  (map.get(name)?.capabilities ?? []).map((capability) => `${[...capability.via, capability.tool].join('>')} ${capability.effect} ${capability.decision}`);

describe('decisionFor', () => {
  it.each([
    ['nothing set: the server default is not shown, so assume it runs', {}, 'x', 'allowed'],
    ['a hook and no default', { toolCalls: { hook: { connection: 'gate' } } }, 'x', 'hook'],
    ['default allow with a hook: the hook decides', { toolCalls: { hook: { connection: 'gate' }, default: 'allow' } }, 'x', 'hook'],
    ['default allow without a hook', { toolCalls: { default: 'allow' } }, 'x', 'allowed'],
    ['default deny', { toolCalls: { default: 'deny', hook: { connection: 'gate' } } }, 'x', 'denied'],
    ['byTool allow wins over a hook', { toolCalls: { hook: { connection: 'gate' }, byTool: { x: 'allow' } } }, 'x', 'allowed'],
    ['byTool deny wins over default allow', { toolCalls: { default: 'allow', byTool: { x: 'deny' } } }, 'x', 'denied'],
    ['another decision value waits for a decision', { toolCalls: { default: 'ask' } }, 'x', 'hook'],
  ] as const)('%s', (_, policies, tool, expected) => {
    expect(decisionFor({ policies } as JsonObject, tool)).toBe(expected);
  });
});

describe('computeCapabilities', () => {
  it('lists builtin, connection (from the lock) and sandbox tools with their effects', () => {
    const map = computeCapabilities(
      [
        agent('support', {
          tools: [
            { type: 'builtin', name: 'current_time' },
            { type: 'builtin', name: 'web_fetch' },
            { type: 'connection', name: 'github' },
          ],
          policies: { toolCalls: { default: 'allow', byTool: { delete_repo: 'deny' } } },
          sandbox: { tools: { preset: 'read-only', allow: ['git', 'rm'], deny: ['rm', 'curl'] } },
        }),
      ],
      surfaces,
    );
    expect(tools(map, 'support')).toEqual([
      'builtin.current_time read-only allowed',
      'builtin.web_fetch unknown allowed',
      'github.delete_repo destructive denied',
      'github.search read-only allowed',
      'sandbox.* read-only allowed',
      'sandbox.curl unknown denied',
      'sandbox.git unknown allowed',
      // rm is both allowed and denied: denied wins
      'sandbox.rm unknown denied',
    ]);
  });

  it('a sandbox preset other than read-only is of unknown effect', () => {
    const map = computeCapabilities(
      [agent('a', { sandbox: { tools: { preset: 'full' } }, policies: { toolCalls: { hook: { connection: 'gate' } } } })],
      surfaces,
    );
    expect(tools(map, 'a')).toEqual(['sandbox.* unknown hook']);
  });

  it('a connection with no lock entry: one entry of unknown effect, and the connection is named', () => {
    const map = computeCapabilities([agent('a', { tools: [{ type: 'connection', name: 'jira' }] })], surfaces);
    expect(tools(map, 'a')).toEqual(['jira.* unknown allowed']);
    expect(map.get('a')?.unknownConnections).toEqual(['jira']);
    expect(computeCapabilities([agent('a', { tools: [{ type: 'connection', name: 'github' }] })], undefined).get('a')?.unknownConnections).toEqual(['github']);
  });

  it('includes what subagents can do, transitively, under their own policies, and survives a cycle', () => {
    const map = computeCapabilities(
      [
        agent('support', { tools: [], subagents: [{ kind: 'agent', name: 'r', agent: 'researcher' }] }),
        agent('researcher', {
          tools: [{ type: 'connection', name: 'github' }],
          policies: { toolCalls: { hook: { connection: 'gate' } } },
          subagents: [{ kind: 'agent', name: 'w', agent: 'writer' }],
        }),
        agent('writer', {
          tools: [{ type: 'builtin', name: 'current_time' }],
          subagents: [
            { kind: 'agent', name: 's', agent: 'support' },
            { kind: 'agent', name: 'x', agent: 'ghost' },
          ],
        }),
      ],
      surfaces,
    );
    expect(tools(map, 'support')).toEqual([
      'researcher>github.delete_repo destructive hook',
      'researcher>github.search read-only hook',
      'researcher>writer>builtin.current_time read-only allowed',
    ]);
    expect(map.get('support')?.missingSubagents).toEqual(['ghost']);
    // writer reaches support, which reaches researcher: every agent once
    expect(tools(map, 'writer')).toEqual([
      'builtin.current_time read-only allowed',
      'support>researcher>github.delete_repo destructive hook',
      'support>researcher>github.search read-only hook',
    ]);
  });
});

describe('diffCapabilities', () => {
  it('added, removed and changed tools per agent; unchanged agents are left out', () => {
    const before = computeCapabilities(
      [
        agent('support', {
          tools: [
            { type: 'builtin', name: 'current_time' },
            { type: 'connection', name: 'github' },
          ],
          policies: { toolCalls: { hook: { connection: 'gate' } } },
        }),
        agent('quiet', { tools: [] }),
      ],
      surfaces,
    );
    const after = computeCapabilities(
      [
        agent('support', {
          tools: [{ type: 'connection', name: 'github' }],
          policies: { toolCalls: { hook: { connection: 'gate' }, byTool: { delete_repo: 'allow' } } },
        }),
        agent('quiet', { tools: [] }),
        agent('fresh', { tools: [{ type: 'builtin', name: 'current_time' }] }),
      ],
      surfaces,
    );
    const diff = diffCapabilities(before, after);
    expect(diff.map((item) => [item.agent, item.status])).toEqual([
      ['fresh', 'created'],
      ['support', 'changed'],
    ]);
    expect(diff[1]?.changes).toEqual([
      { change: 'removed', tool: 'builtin.current_time', via: [], before: { decision: 'hook', effect: 'read-only' } },
      {
        change: 'changed',
        tool: 'github.delete_repo',
        via: [],
        before: { decision: 'hook', effect: 'destructive' },
        after: { decision: 'allowed', effect: 'destructive' },
      },
    ]);
  });

  it("lists a new agent's own tools before its subagents' tools", () => {
    const after = computeCapabilities(
      [
        agent('support', { tools: [{ type: 'builtin', name: 'current_time' }], subagents: [{ kind: 'agent', name: 'r', agent: 'researcher' }] }),
        agent('researcher', { tools: [{ type: 'builtin', name: 'web' }] }),
      ],
      surfaces,
    );
    const diff = diffCapabilities(new Map(), after).find((item) => item.agent === 'support');
    expect(diff?.changes.map((change) => [...change.via, change.tool].join('>'))).toEqual(['builtin.current_time', 'researcher>builtin.web']);
  });
});
