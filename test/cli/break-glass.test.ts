// The command-line edge of change windows: who breaks the glass, an empty reason, AGENTFORM_NOW.
import { describe, expect, it } from 'vitest';
import { actorOf, breakGlassRequest, nowOf } from '../../src/cli/break-glass.js';

describe('actorOf', () => {
  it.each<[NodeJS.ProcessEnv, string]>([
    [{ AGENTFORM_ACTOR: 'alice', GITHUB_ACTOR: 'octocat', USER: 'runner' }, 'alice'],
    [{ GITHUB_ACTOR: 'octocat', GITLAB_USER_LOGIN: 'tanuki', USER: 'runner' }, 'octocat'],
    [{ GITLAB_USER_LOGIN: 'tanuki', USER: 'runner' }, 'tanuki'],
    [{ AGENTFORM_ACTOR: ' ', USER: 'runner' }, 'runner'],
    [{}, 'unknown'],
  ])('%j → %s', (env, actor) => {
    expect(actorOf(env)).toBe(actor);
  });
});

describe('breakGlassRequest', () => {
  it('is absent without the flag', () => {
    expect(breakGlassRequest(undefined, {})).toBeUndefined();
  });

  it.each(['', '   '])('refuses an empty reason (%j)', (reason) => {
    expect(() => breakGlassRequest(reason, {})).toThrow('--break-glass needs a reason');
  });

  it('carries the reason and who gives it', () => {
    expect(breakGlassRequest(' incident 4711 ', { GITHUB_ACTOR: 'octocat' })).toEqual({ reason: 'incident 4711', actor: 'octocat' });
  });
});

describe('nowOf', () => {
  it('reads AGENTFORM_NOW', () => {
    expect(nowOf({ AGENTFORM_NOW: '2026-12-24T10:00:00+01:00' }).toISOString()).toBe('2026-12-24T09:00:00.000Z');
  });

  it.each(['2026-12-24', '2026-12-24T10:00:00', 'tomorrow'])('refuses %s (no offset, no time)', (text) => {
    expect(() => nowOf({ AGENTFORM_NOW: text })).toThrow('AGENTFORM_NOW must be an ISO 8601 date and time with its offset');
  });

  it('is the clock without it', () => {
    const before = Date.now();
    const now = nowOf({}).getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
