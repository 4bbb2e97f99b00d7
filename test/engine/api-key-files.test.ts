// API keys and their token files: which live key a file belongs to, what that makes the plan do
// (a key whose token is nowhere is replaced), and which of two live keys of one name is kept.
import { describe, expect, it } from 'vitest';
import { credentialKeyProblems, reconcileKeyTokenFiles, type TokenFileContent } from '../../src/engine/api-key-files.js';
import { computePlan } from '../../src/engine/plan.js';
import type { ActualResource, DesiredResource } from '../../src/model/resources.js';
import { actual, actualState, desired, desiredState } from './builders.js';

const key = (name: string, id: string, prefix: string, createdAt = '2026-01-01T00:00:00Z'): ActualResource => {
  const resource = actual('apiKey', name, { scopes: ['read'] }, { id, prefix, createdAt });
  return { ...resource, id };
};
const declared = (name = 'ci', extra: Partial<DesiredResource> = {}) =>
  desired('apiKey', name, { scopes: ['read'] }, { options: { tokenFile: `.agentform/${name}.token` }, ...extra });

function planWith(files: Record<string, TokenFileContent>, keys: ActualResource[], want: DesiredResource[] = [declared()], ownToken?: string) {
  const reconciled = reconcileKeyTokenFiles(desiredState(want), actualState(keys), {
    files: new Map(Object.entries(files)),
    ...(ownToken ? { ownToken } : {}),
  });
  return { ...reconciled, plan: computePlan(reconciled.desired, reconciled.actual, { prune: false }) };
}

describe('token file states', () => {
  const live = key('ci', 'key_1', 'svc_staging_AAAA');
  const other = key('deploy', 'key_2', 'svc_staging_BBBB');
  it.each([
    ['no file: missing → replace', { exists: false }, 'missing', 'replace'],
    ["the live key's token: owned → no-op", { exists: true, token: 'svc_staging_AAAAxyz' }, 'owned', 'no-op'],
    ['a token of no live key of this environment: stale → replace', { exists: true, token: 'svc_staging_ZZZZxyz' }, 'stale', 'replace'],
    ["another live key's token: foreign → replace (and apply refuses to overwrite it)", { exists: true, token: 'svc_staging_BBBBxyz' }, 'foreign', 'replace'],
    ['a token of another environment: foreign', { exists: true, token: 'svc_prod_AAAAxyz' }, 'foreign', 'replace'],
    ['not a token at all: foreign', { exists: true, token: 'hello world' }, 'foreign', 'replace'],
    ['an empty file: foreign', { exists: true }, 'foreign', 'replace'],
  ] as const)('%s', (_name, file, state, action) => {
    const { desired: annotated, plan } = planWith({ ci: file }, [live, other]);
    expect(annotated.resources[0]!.options).toEqual({ tokenFile: '.agentform/ci.token', tokenFileState: state });
    expect(plan.changes.find((change) => change.address === 'apiKey/ci')?.action).toBe(action);
  });

  it('says why: token file missing', () => {
    const change = planWith({ ci: { exists: false } }, [live]).plan.changes[0]!;
    expect(change).toMatchObject({ action: 'replace', id: 'key_1' });
    expect(change.reason).toContain('token file missing');
    expect(planWith({ ci: { exists: false } }, [live]).plan.summary.replace).toBe(1);
  });

  it('the run’s own credential in the file is never taken for a stale token', () => {
    const { desired: annotated } = planWith({ ci: { exists: true, token: 'svc_staging_OWNxyz' } }, [], [declared()], 'svc_staging_OWNxyz');
    expect(annotated.resources[0]!.options?.tokenFileState).toBe('foreign');
  });

  it('a missing file of a key not created yet is just a create', () => {
    expect(planWith({ ci: { exists: false } }, []).plan.changes[0]!.action).toBe('create');
  });

  it('a protected key is not replaced: a warning says why its token is nowhere', () => {
    const { plan } = planWith({ ci: { exists: false } }, [live], [declared('ci', { protect: true })]);
    expect(plan.changes[0]!.action).toBe('no-op');
    expect(plan.warnings.join('\n')).toContain('token file missing');
  });

  it('a key without tokenFile is left as it was', () => {
    const { desired: annotated, plan } = planWith({}, [live], [desired('apiKey', 'ci', { scopes: ['read'] })]);
    expect(annotated.resources[0]!.options).toBeUndefined();
    expect(plan.changes[0]!.action).toBe('no-op');
  });
});

describe('two live keys of one declared name (two applies at once)', () => {
  // Normalisation names the newest `ci` and the other `ci#<id>`.
  const older = key('ci#key_old', 'key_old', 'svc_staging_OLD1', '2026-01-01T00:00:00Z');
  const newer = key('ci', 'key_new', 'svc_staging_NEW1', '2026-01-02T00:00:00Z');

  it('keeps the key whose token the file holds, and revokes the other without --prune', () => {
    const { plan, actual: relabelled } = planWith({ ci: { exists: true, token: 'svc_staging_OLD1rest' } }, [older, newer]);
    expect(relabelled.resources.map((resource) => `${resource.name}=${resource.id}`).sort()).toEqual(['ci#key_new=key_new', 'ci=key_old']);
    expect(plan.changes.map((change) => `${change.address}:${change.action}`)).toEqual(['apiKey/ci:no-op', 'apiKey/ci#key_new:delete']);
    expect(plan.changes[1]!.reason).toContain('a second live key named ci');
    expect(plan.summary).toMatchObject({ destroy: 1, unmanaged: 0 });
  });

  it('keeps the newest when no token file tells', () => {
    const { plan } = planWith({}, [older, newer], [desired('apiKey', 'ci', { scopes: ['read'] })]);
    expect(plan.changes.map((change) => `${change.address}:${change.action}`)).toEqual(['apiKey/ci:no-op', 'apiKey/ci#key_old:delete']);
  });

  it('does not count against the mass-delete guard, and is not touched when protected', () => {
    // Two duplicates of three keys would be "more than half of the environment" if counted as prunes.
    const third = key('ci#key_third', 'key_third', 'svc_staging_THR1', '2025-12-01T00:00:00Z');
    const guarded = computePlan(desiredState([declared()]), actualState([older, newer, third]), { prune: true, maxDeleteShare: 0.5 });
    expect(guarded.summary.destroy).toBe(2);
    const { plan } = planWith({ ci: { exists: true, token: 'svc_staging_NEW1rest' } }, [older, newer], [declared('ci', { protect: true })]);
    expect(plan.summary.destroy).toBe(0);
    expect(plan.warnings.join('\n')).toContain('apiKey/ci#key_old is a second live key named ci');
  });

  it('a duplicate of a name the configuration does not declare stays unmanaged', () => {
    const plan = computePlan(desiredState([]), actualState([older, newer]), { prune: false });
    expect(plan.changes.map((change) => change.action)).toEqual(['unmanaged', 'unmanaged']);
  });
});

describe('the key a run authenticates with', () => {
  const cases: Array<{ name: string; want: DesiredResource[]; have: ActualResource[]; problems: string[] }> = [
    { name: 'kept: nothing to say', want: [desired('apiKey', 'ci', { scopes: ['read'] })], have: [actual('apiKey', 'ci', { scopes: ['read'] })], problems: [] },
    {
      name: 'replaced',
      want: [desired('apiKey', 'ci', { scopes: ['control'] })],
      have: [actual('apiKey', 'ci', { scopes: ['read'] })],
      problems: ["apiKey/ci is the key this run authenticates with: replacing it would revoke the run's own credential halfway through"],
    },
    {
      name: 'pruned',
      want: [],
      have: [actual('apiKey', 'ci', { scopes: ['read'] })],
      problems: ["apiKey/ci is the key this run authenticates with: deleting it would revoke the run's own credential halfway through"],
    },
    {
      name: 'another key pruned',
      want: [],
      have: [actual('apiKey', 'ci', { scopes: ['read'] }), actual('apiKey', 'other', { scopes: ['read'] })],
      problems: ["apiKey/ci is the key this run authenticates with: deleting it would revoke the run's own credential halfway through"],
    },
  ];
  it.each(cases)('$name', ({ want, have, problems }) => {
    const plan = computePlan(desiredState(want), actualState(have), { prune: true, pruneApiKeys: true, allowMassDelete: true });
    expect(credentialKeyProblems(plan, 'apiKey/ci')).toEqual(problems);
  });
});
