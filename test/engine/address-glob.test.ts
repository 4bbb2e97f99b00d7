// The one address-glob dialect of owns:, protect:, forget:, --exclude and ignore: rules.
import { describe, expect, it } from 'vitest';
import { addressGlob, addressMatches, compiledGlobCount } from '../../src/engine/address-glob.js';

describe('addressMatches', () => {
  const cases: Array<[pattern: string, address: string, matches: boolean]> = [
    ['agent/support', 'agent/support', true],
    ['agent/support', 'agent/support-2', false],
    ['agent/team-a-*', 'agent/team-a-bot', true],
    ['agent/team-a-*', 'agent/team-a-', true],
    ['agent/team-a-*', 'agent/team-b-bot', false],
    ['agent/team-a-*', 'secret/team-a-bot', false],
    ['agent/*', 'provider/openai', false],
    ['*/team-a-*', 'secret/team-a-openai', true],
    ['agent/b?t', 'agent/bat', true],
    ['agent/b?t', 'agent/bt', false],
    ['agent/a.b', 'agent/axb', false],
    ['agent/a+b', 'agent/a+b', true],
    ['agent/(x)', 'agent/(x)', true],
    ['grant/github:*', 'grant/github:user:alice', true],
    // `*` crosses `/` and `:`: a grant's identity may hold a slash.
    ['grant/gh:*', 'grant/gh:team:org/reviewers', true],
    ['agent/*', 'agent/anything:at/all', true],
    ['*', 'agent/support', true],
  ];
  it.each(cases)('%s against %s: %s', (pattern, address, matches) => {
    expect(addressMatches(pattern, address)).toBe(matches);
  });

  it('compiles each pattern once', () => {
    expect(addressGlob('agent/once-*')).toBe(addressGlob('agent/once-*'));
  });

  it('keeps a bounded number of compiled patterns', () => {
    for (let i = 0; i < 2500; i++) addressMatches(`agent/many-${i}-*`, 'agent/x');
    expect(compiledGlobCount()).toBeLessThanOrEqual(1000);
  });
});
