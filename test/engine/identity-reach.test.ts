// The identity dimension: which identities reach which connection through which grant, and what a
// change adds or removes (grants added or removed, scope changes, identity.required flips).
import { describe, expect, it } from 'vitest';
import { computeCapabilities } from '../../src/engine/capabilities.js';
import { computeIdentityReach, diffIdentityReach, type GrantSubject, grantsOf } from '../../src/engine/identity-reach.js';
import type { JsonObject } from '../../src/model/resources.js';
import { GITHUB_SURFACE } from './policy/builders.js';

const surfaces = { github: GITHUB_SURFACE };
const grant = (scope: string, id: string, connection = 'github'): GrantSubject => ({ name: `${connection}:${scope}:${id}`, connection, scope, id });
const support = (identity?: JsonObject): JsonObject => ({ tools: [{ type: 'connection', name: 'github' }], ...(identity ? { identity } : {}) });

interface Side {
  agents: Record<string, JsonObject>;
  grants: GrantSubject[];
}

function reachOf(side: Side) {
  const agents = Object.entries(side.agents).map(([name, spec]) => ({ name, spec }));
  return computeIdentityReach(agents, computeCapabilities(agents, surfaces), side.grants);
}

/** `support: + user:alice github via grant github:user:alice`, one line per change. */
function changeLines(before: Side, after: Side): string[] {
  return diffIdentityReach(reachOf(before), reachOf(after)).flatMap((diff) =>
    diff.changes.map((change) => {
      const { reach } = change;
      const where = [...reach.via, reach.connection].join('>');
      const mark = { added: '+', removed: '-', changed: '~' }[change.change];
      const was = change.change === 'changed' ? ` (was${change.before.note ? ' noted' : ' not noted'})` : '';
      return `${diff.agent}: ${mark} ${reach.identity} ${where}${reach.grant ? ` via grant ${reach.grant}` : ''}${reach.note ? ' (note)' : ''}${was}`;
    }),
  );
}

describe('computeIdentityReach', () => {
  it('lists anonymous and each grant subject with the connection tools, never a token', () => {
    const reach = reachOf({ agents: { support: support() }, grants: [grant('user', 'bob'), grant('user', 'alice'), grant('user', 'x', 'other')] });
    expect(reach.get('support')).toEqual([
      { identity: 'anonymous', connection: 'github', via: [], tools: ['github.delete_repo', 'github.search'] },
      { identity: 'user:alice', connection: 'github', via: [], grant: 'github:user:alice', tools: ['github.delete_repo', 'github.search'] },
      { identity: 'user:bob', connection: 'github', via: [], grant: 'github:user:bob', tools: ['github.delete_repo', 'github.search'] },
    ]);
  });

  it.each<[string, JsonObject, string[]]>([
    ['a tool denied by byTool', { byTool: { delete_repo: 'deny' } }, ['anonymous github.search', 'user:alice github.search']],
    ['every tool denied by default', { default: 'deny' }, []],
    [
      'a tool decided by a hook',
      { byTool: { delete_repo: 'ask' } },
      ['anonymous github.delete_repo,github.search', 'user:alice github.delete_repo,github.search'],
    ],
  ])('the tool decision counts: %s', (_, toolCalls, expected) => {
    const reach = reachOf({ agents: { support: { ...support(), policies: { toolCalls } } }, grants: [grant('user', 'alice')] });
    expect(reach.get('support')?.map((entry) => `${entry.identity} ${entry.tools.join(',')}`)).toEqual(expected);
  });

  it('an identity required anywhere on a subagent chain keeps the anonymous caller out', () => {
    const reach = reachOf({
      agents: { front: { subagents: [{ agent: 'support' }] }, support: support({ required: true }) },
      grants: [grant('user', 'alice')],
    });
    expect(reach.get('front')?.map((entry) => `${entry.via.join('>')}|${entry.identity}`)).toEqual(['support|user:alice']);
  });

  it.each([
    ['the closed chain listed first', ['a', 'b']],
    ['the open chain listed first', ['b', 'a']],
  ])('a diamond: the anonymous caller reaches the shared subagent through the open chain (%s)', (_, order) => {
    const reach = reachOf({
      agents: {
        front: { subagents: order.map((agent) => ({ agent })) },
        a: { identity: { required: true }, subagents: [{ agent: 'leaf' }] },
        b: { subagents: [{ agent: 'leaf' }] },
        leaf: support(),
      },
      grants: [],
    });
    expect(reach.get('front')?.map((entry) => `${entry.via.join('>')}|${entry.identity}`)).toEqual(['b>leaf|anonymous']);
  });

  it('reads grants from resources (desired or actual) and skips malformed ones', () => {
    expect(
      grantsOf([
        { kind: 'grant', name: 'github:user:alice', spec: { connection: 'github', identity: { scope: 'user', id: 'alice' } } },
        { kind: 'grant', name: 'broken', spec: { connection: 'github' } },
        { kind: 'agent', name: 'a', spec: {} },
      ]),
    ).toEqual([grant('user', 'alice')]);
  });
});

describe('diffIdentityReach', () => {
  const alice = grant('user', 'alice');
  const team = grant('team', 'support');
  it.each<[string, Side, Side, string[]]>([
    ['nothing changes', { agents: { support: support() }, grants: [alice] }, { agents: { support: support() }, grants: [alice] }, []],
    [
      'a grant added',
      { agents: { support: support({ required: true }) }, grants: [] },
      { agents: { support: support({ required: true }) }, grants: [alice] },
      ['support: + user:alice github via grant github:user:alice'],
    ],
    [
      'a grant removed',
      { agents: { support: support({ required: true }) }, grants: [alice, team] },
      { agents: { support: support({ required: true }) }, grants: [team] },
      ['support: - user:alice github via grant github:user:alice'],
    ],
    [
      'identity.required flipped to false: the anonymous caller comes in',
      { agents: { support: support({ required: true }) }, grants: [alice] },
      { agents: { support: support({ required: false }) }, grants: [alice] },
      ['support: + anonymous github'],
    ],
    [
      'identity.required flipped to true: the anonymous caller goes',
      { agents: { support: support() }, grants: [alice] },
      { agents: { support: support({ required: true }) }, grants: [alice] },
      ['support: - anonymous github'],
    ],
    [
      "a grant's scope changes: one identity goes, another comes, noted when outside scopesAllowed",
      { agents: { support: support({ required: true, scopesAllowed: ['user'] }) }, grants: [alice] },
      { agents: { support: support({ required: true, scopesAllowed: ['user'] }) }, grants: [grant('team', 'alice')] },
      ['support: + team:alice github via grant github:team:alice (note)', 'support: - user:alice github via grant github:user:alice'],
    ],
    [
      'identity.scopesAllowed narrowed: the same identity, now outside what is allowed (issue 50)',
      { agents: { support: support({ required: true, scopesAllowed: ['user', 'team'] }) }, grants: [alice] },
      { agents: { support: support({ required: true, scopesAllowed: ['team'] }) }, grants: [alice] },
      ['support: ~ user:alice github via grant github:user:alice (note) (was not noted)'],
    ],
    [
      'identity.scopesAllowed widened: the note goes',
      { agents: { support: support({ required: true, scopesAllowed: ['team'] }) }, grants: [alice] },
      { agents: { support: support({ required: true, scopesAllowed: ['team', 'user'] }) }, grants: [alice] },
      ['support: ~ user:alice github via grant github:user:alice (was noted)'],
    ],
    [
      'identity.scopesAllowed changed, the scope still outside: the note names the new list',
      { agents: { support: support({ required: true, scopesAllowed: ['team'] }) }, grants: [alice] },
      { agents: { support: support({ required: true, scopesAllowed: ['org'] }) }, grants: [alice] },
      ['support: ~ user:alice github via grant github:user:alice (note) (was noted)'],
    ],
    [
      'identity.scopesAllowed changed, the scope inside before and after: no change',
      { agents: { support: support({ required: true, scopesAllowed: ['user'] }) }, grants: [alice] },
      { agents: { support: support({ required: true, scopesAllowed: ['user', 'team'] }) }, grants: [alice] },
      [],
    ],
    [
      'the agent stops using the connection',
      { agents: { support: support({ required: true }) }, grants: [alice] },
      { agents: { support: { identity: { required: true } } }, grants: [alice] },
      ['support: - user:alice github via grant github:user:alice'],
    ],
    [
      'a new agent on a connection with grants',
      { agents: {}, grants: [alice] },
      { agents: { support: support({ required: true }) }, grants: [alice] },
      ['support: + user:alice github via grant github:user:alice'],
    ],
  ])('%s', (_, before, after, expected) => {
    expect(changeLines(before, after)).toEqual(expected);
  });

  it('a scope outside scopesAllowed carries a note naming the agent and its allowed scopes', () => {
    const reach = reachOf({ agents: { support: support({ scopesAllowed: ['user'] }) }, grants: [grant('team', 'ops')] });
    expect(reach.get('support')?.find((entry) => entry.identity === 'team:ops')?.note).toMatch(
      /scope team is not in support's identity.scopesAllowed \[user\]/,
    );
  });
});
