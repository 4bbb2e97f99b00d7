import { describe, expect, it } from 'vitest';
import { PlanError } from '../../src/engine/errors.js';
import {
  isOwned,
  markProtected,
  refuseAgentWritesOutOfScope,
  refuseProtectedChanges,
  refuseTargetsOutOfScope,
  scopeStates,
  type ScopeInputs,
  unmatchedRuleWarnings,
} from '../../src/engine/ownership.js';
import { TOKEN_FILE_STATE } from '../../src/engine/api-key-files.js';
import { computePlan } from '../../src/engine/plan.js';
import type { ResourceAddress, ResourceKind } from '../../src/model/resources.js';
import { actual, actualState, agentSpec, desired, desiredState } from './builders.js';

describe('isOwned', () => {
  const owns = ['agent/team-a-*', 'connection/team-a-*'];
  const cases: Array<[kind: ResourceKind, name: string, owns: string[] | undefined, owned: boolean]> = [
    ['agent', 'team-a-bot', owns, true],
    ['agent', 'team-b-bot', owns, false],
    ['secret', 'team-a-key', owns, false],
    ['grant', 'team-a-github:user:alice', owns, true],
    ['grant', 'team-b-github:user:alice', owns, false],
    ['environment', 'dev', owns, true],
    ['organization', 'current', owns, true],
    ['agent', 'anything', undefined, true],
    ['agent', 'anything', [], false],
  ];
  it.each(cases)('%s/%s with owns %j: %s', (kind, name, patterns, owned) => {
    expect(isOwned(`${kind}/${name}` as ResourceAddress, kind, patterns)).toBe(owned);
  });
});

const inputs = (extra: Partial<ScopeInputs>): ScopeInputs => ({ protect: [], forget: [], excludes: [], ...extra });
const addresses = (resources: Array<{ kind: string; name: string }>) => resources.map((resource) => `${resource.kind}/${resource.name}`);

describe('scopeStates', () => {
  it('leaves the states as they are without rules', () => {
    const want = desiredState([desired('agent', 'a', agentSpec())]);
    const have = actualState([actual('agent', 'b', agentSpec())]);
    const scoped = scopeStates(want, have, inputs({}));
    expect(scoped).toEqual({ desired: want, actual: have, scope: undefined });
  });

  it('drops live resources outside owns: and counts them', () => {
    const scoped = scopeStates(
      desiredState([desired('agent', 'a-bot', agentSpec())]),
      actualState([actual('agent', 'a-old', agentSpec()), actual('agent', 'b-bot', agentSpec()), actual('environment', 'staging')]),
      inputs({ owns: ['agent/a-*'] }),
    );
    expect(addresses(scoped.actual.resources)).toEqual(['agent/a-old', 'environment/staging']);
    expect(scoped.scope).toEqual({ excludes: [], owns: ['agent/a-*'], notOwned: 1, setAside: [] });
  });

  it('sets aside forgotten and excluded resources on both sides, with the reason', () => {
    const scoped = scopeStates(
      desiredState([desired('agent', 'a', agentSpec()), desired('agent', 'x1', agentSpec())]),
      actualState([actual('agent', 'a', agentSpec()), actual('agent', 'legacy', agentSpec()), actual('agent', 'x2', agentSpec())]),
      inputs({ forget: [{ pattern: 'agent/leg*', reason: 'handed over', location: { file: 'agentform.yaml', line: 3, col: 5 } }], excludes: ['agent/x*'] }),
    );
    expect(addresses(scoped.desired.resources)).toEqual(['agent/a']);
    expect(addresses(scoped.actual.resources)).toEqual(['agent/a']);
    expect(scoped.scope?.setAside).toEqual([
      { address: 'agent/legacy', as: 'forgotten', reason: 'forget: agent/leg* (agentform.yaml:3:5): handed over' },
      { address: 'agent/x1', as: 'excluded', reason: '--exclude agent/x*' },
      { address: 'agent/x2', as: 'excluded', reason: '--exclude agent/x*' },
    ]);
  });

  // A grant belongs to its connection: forgetting or excluding the connection sets its grants
  // aside too (a prune would otherwise revoke the grants of a connection handed to another team).
  const grantCases: Array<{ name: string; extra: Partial<ScopeInputs>; as: 'forgotten' | 'excluded' }> = [
    { name: 'forget: of a connection', extra: { forget: [{ pattern: 'connection/legacy' }] }, as: 'forgotten' },
    { name: '--exclude of a connection', extra: { excludes: ['connection/leg*'] }, as: 'excluded' },
  ];
  it.each(grantCases)('$name sets aside its live grants too', ({ extra, as }) => {
    const grant = { connection: 'legacy', identity: { scope: 'user', id: 'alice' } };
    const scoped = scopeStates(
      desiredState([desired('agent', 'a', agentSpec())]),
      actualState([
        actual('connection', 'legacy', { url: 'https://x' }),
        actual('grant', 'legacy:user:alice', grant),
        actual('grant', 'other:user:bob', grant),
      ]),
      inputs(extra),
    );
    expect(addresses(scoped.actual.resources)).toEqual(['grant/other:user:bob']);
    expect(scoped.scope?.setAside.map((item) => [item.address, item.as])).toEqual([
      ['connection/legacy', as],
      ['grant/legacy:user:alice', as],
    ]);
  });

  it('refuses a declared resource that forget: lists, at its declaration', () => {
    const location = { file: 'legacy.yaml', line: 2, col: 7 };
    const act = () =>
      scopeStates(desiredState([desired('agent', 'legacy', agentSpec(), { location })]), actualState([]), inputs({ forget: [{ pattern: 'agent/legacy' }] }));
    expect(act).toThrow(PlanError);
    expect(act).toThrow(/agent\/legacy is declared, and forget: agent\/legacy/);
  });

  const reference = (kind: ResourceKind, name: string) => ({ references: [{ kind, name, path: 'model.provider' }] });
  const dependentCases: Array<{ name: string; live: string[]; kept: string[]; excludedReason?: string }> = [
    {
      name: 'excludes what depends on an excluded resource that does not exist yet, transitively',
      live: [],
      kept: ['agent/other'],
      excludedReason: 'depends on provider/p, which is excluded and does not exist yet',
    },
    { name: 'keeps what depends on an excluded resource that is live', live: ['p'], kept: ['agent/bot', 'agent/sub', 'agent/other'] },
  ];
  it.each(dependentCases)('$name', ({ live, kept, excludedReason }) => {
    const scoped = scopeStates(
      desiredState([
        desired('provider', 'p', { type: 'openai' }),
        desired('agent', 'bot', agentSpec(), reference('provider', 'p')),
        desired('agent', 'sub', agentSpec(), reference('agent', 'bot')),
        desired('agent', 'other', agentSpec()),
      ]),
      actualState(live.map((name) => actual('provider', name, { type: 'openai' }))),
      inputs({ excludes: ['provider/p'] }),
    );
    expect(addresses(scoped.desired.resources)).toEqual(kept);
    if (excludedReason) {
      expect(scoped.scope?.setAside.find((item) => item.address === 'agent/bot')?.reason).toBe(excludedReason);
      expect(scoped.scope?.setAside.find((item) => item.address === 'agent/sub')?.reason).toBe(
        'depends on agent/bot, which is excluded and does not exist yet',
      );
    }
  });
});

describe('refuseProtectedChanges', () => {
  const protect = [{ pattern: 'agent/bill*', reason: 'customer-facing', location: { file: 'agentform.yaml', line: 4, col: 9 } }];
  const cases: Array<{ name: string; have: string[]; want: string[]; refused?: RegExp }> = [
    {
      name: 'refuses a prune that destroys a protected resource',
      have: ['a', 'billing'],
      want: ['a'],
      refused: /agent\/billing would be destroyed .*protected by protect: agent\/bill\* \(agentform\.yaml:4:9\): customer-facing/,
    },
    { name: 'allows a prune of what is not protected', have: ['a', 'old'], want: ['a'] },
    { name: 'allows updates of a protected resource', have: ['billing'], want: ['billing'] },
  ];
  it.each(cases)('$name', ({ have, want, refused }) => {
    const plan = computePlan(
      desiredState(want.map((name) => desired('agent', name, agentSpec('gpt-4o-mini')))),
      actualState(have.map((name) => actual('agent', name, agentSpec()))),
      { prune: true, allowMassDelete: true },
    );
    const act = () => refuseProtectedChanges(plan, protect);
    if (refused) expect(act).toThrow(refused);
    else expect(act).not.toThrow();
  });

  it('refuses a prune of a grant of a protected connection', () => {
    const plan = computePlan(
      desiredState([]),
      actualState([actual('grant', 'billing:user:alice', { connection: 'billing', identity: { scope: 'user', id: 'alice' } })]),
      {
        prune: true,
        allowMassDelete: true,
      },
    );
    expect(() => refuseProtectedChanges(plan, [{ pattern: 'connection/billing' }])).toThrow(/grant\/billing:user:alice would be destroyed/);
  });

  it('a matched declared resource is protected as protect: true makes it: the plan refuses its replace', () => {
    const want = desiredState([desired('apiKey', 'billing-ci', { scopes: ['read'] })]);
    const have = actualState([actual('apiKey', 'billing-ci', { scopes: ['control'] })]);
    expect(() => computePlan(markProtected(want, [{ pattern: 'apiKey/billing-*' }]), have, { prune: false })).toThrow(
      /apiKey\/billing-ci is protected and would be replaced: scopes cannot change in place/,
    );
  });

  it('a matched declared key whose token file is missing is kept with a warning, not refused', () => {
    const options = { tokenFile: '.agentform/ci.token', [TOKEN_FILE_STATE]: 'missing' };
    const want = desiredState([desired('apiKey', 'ci', { scopes: ['read'] }, { options })]);
    const plan = computePlan(markProtected(want, [{ pattern: 'apiKey/ci' }]), actualState([actual('apiKey', 'ci', { scopes: ['read'] })]), { prune: false });
    expect(plan.changes.map((change) => change.action)).toEqual(['no-op']);
    expect(plan.warnings).toContainEqual(expect.stringMatching(/apiKey\/ci: token file missing .*it is protected, so it is not replaced/));
    expect(() => refuseProtectedChanges(plan, [{ pattern: 'apiKey/ci' }])).not.toThrow();
  });
});

describe('refuseTargetsOutOfScope', () => {
  const live = actualState([actual('agent', 'a-bot', agentSpec()), actual('agent', 'b-bot', agentSpec()), actual('agent', 'a-old', agentSpec())]);
  const scoped = scopeStates(desiredState([]), live, inputs({ owns: ['agent/a-*'], excludes: ['agent/a-old'] }));
  const cases: Array<[target: ResourceAddress, refused: RegExp | undefined]> = [
    ['agent/a-bot', undefined],
    ['agent/a-old', /--target agent\/a-old is excluded \(--exclude agent\/a-old\)/],
    ['agent/b-bot', /--target agent\/b-bot is outside what this project owns \(owns: agent\/a-\*\)/],
  ];
  it.each(cases)('%s', (target, refused) => {
    const act = () => refuseTargetsOutOfScope([target], scoped.scope, live);
    if (refused) expect(act).toThrow(refused);
    else expect(act).not.toThrow();
  });
});

describe('unmatchedRuleWarnings', () => {
  const want = desiredState([desired('agent', 'a-bot', agentSpec())]);
  const have = actualState([actual('agent', 'a-old', agentSpec()), actual('agent', 'b-bot', agentSpec())]);
  const cases: Array<{ name: string; rules: Partial<ScopeInputs>; warnings: string[] }> = [
    { name: 'a rule matching a declared resource', rules: { protect: [{ pattern: 'agent/a-b*' }] }, warnings: [] },
    { name: 'a rule matching a live resource', rules: { forget: [{ pattern: 'agent/a-old' }] }, warnings: [] },
    {
      name: 'a rule matching only what owns: hides',
      rules: { owns: ['agent/a-*'], forget: [{ pattern: 'agent/b-bot' }] },
      warnings: ['forget: agent/b-bot (agentform.yaml) matches no resource here: remove it once no longer needed'],
    },
    {
      name: 'a protect: glob with a typo',
      rules: { protect: [{ pattern: 'agent/a-bto' }] },
      warnings: ['protect: agent/a-bto (agentform.yaml) matches no resource here: check the glob'],
    },
  ];
  it.each(cases)('$name', ({ rules, warnings }) => {
    expect(unmatchedRuleWarnings(inputs(rules), want, have)).toEqual(warnings);
  });
});

describe('refuseAgentWritesOutOfScope (promote, rollback)', () => {
  const rules = { owns: ['agent/team-a-*'], protect: [], forget: [{ pattern: 'agent/team-a-legacy', reason: 'handed over' }] };
  const cases: Array<[slugs: string[], refused: RegExp | undefined]> = [
    [['team-a-bot'], undefined],
    [['team-a-bot', 'team-b-bot'], /refusing to promote agent\/team-b-bot: it is outside what this project owns \(owns: agent\/team-a-\*\)/],
    [['team-a-legacy'], /refusing to promote agent\/team-a-legacy: forget: agent\/team-a-legacy .*handed over says agentform no longer manages it/],
  ];
  it.each(cases)('%j', (slugs, refused) => {
    const act = () => refuseAgentWritesOutOfScope(slugs, rules, 'promote');
    if (refused) expect(act).toThrow(refused);
    else expect(act).not.toThrow();
  });

  it('allows every agent without rules', () => {
    expect(() => refuseAgentWritesOutOfScope(['anything'], { protect: [], forget: [] }, 'roll back')).not.toThrow();
  });
});
