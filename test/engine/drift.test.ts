// drift read off a plan: what counts (changed outside, missing, unmanaged) and what does not
// (ignored differences, write-only resends, resets to server defaults, the run's own key).
import { describe, expect, it } from 'vitest';
import { driftOf, hasDrift } from '../../src/engine/drift.js';
import type { ToolSurfaceReport } from '../../src/engine/tool-surface.js';
import type { Plan, ResourceChange } from '../../src/model/resources.js';

const change = (address: ResourceChange['address'], action: ResourceChange['action'], fields: ResourceChange['fields'] = []): ResourceChange => ({
  address,
  kind: address.split('/')[0] as ResourceChange['kind'],
  name: address.split('/')[1] as string,
  action,
  fields,
  dependsOn: [],
});

function plan(changes: ResourceChange[], ignored: Plan['ignored'] = undefined): Plan {
  return {
    formatVersion: 1,
    environment: 'dev',
    changes,
    order: [],
    summary: { add: 0, change: 0, adopt: 0, replace: 0, destroy: 0, unmanaged: 0 },
    warnings: [],
    ...(ignored ? { ignored } : {}),
  };
}

describe('driftOf', () => {
  it.each<[string, ResourceChange[], { changed: string[]; unmanaged: string[] }]>([
    ['nothing', [change('agent/a', 'no-op')], { changed: [], unmanaged: [] }],
    ['a changed field', [change('agent/a', 'update', [{ path: 'system', before: 'x', after: 'y' }])], { changed: ['agent/a changed'], unmanaged: [] }],
    ['a declared resource that is not live', [change('agent/a', 'create')], { changed: ['agent/a missing'], unmanaged: [] }],
    ['a write-only resend alone', [change('provider/p', 'update', [{ path: 'secret', writeOnly: true }])], { changed: [], unmanaged: [] }],
    ['a reset alone', [change('agent/a', 'update', [{ path: 'x', before: 1, after: null, resetToDefault: true }])], { changed: [], unmanaged: [] }],
    ['an unmanaged resource', [change('agent/b', 'unmanaged')], { changed: [], unmanaged: ['agent/b'] }],
    ['the run’s own key', [change('apiKey/ci', 'unmanaged')], { changed: [], unmanaged: [] }],
    ['another undeclared key, keys counted', [change('apiKey/other', 'unmanaged')], { changed: [], unmanaged: ['apiKey/other'] }],
    ['a second live key of a declared one (revoked by apply)', [change('apiKey/ci#2', 'delete')], { changed: [], unmanaged: ['apiKey/ci#2'] }],
  ])('%s', (_name, changes, expected) => {
    const report = driftOf(plan(changes), { ownKey: 'apiKey/ci', countUndeclaredKeys: true });
    expect(report.changed.map((item) => `${item.address} ${item.state}`)).toEqual(expected.changed);
    expect(report.unmanaged.map((item) => item.address)).toEqual(expected.unmanaged);
    expect(hasDrift(report)).toBe(expected.changed.length + expected.unmanaged.length > 0);
  });

  it.each<[string, ToolSurfaceReport, boolean]>([
    ['a surface that differs from the lock', { checked: true, connections: [{ connection: 'crm', status: 'differs' }] }, true],
    ['surfaces that match', { checked: true, connections: [{ connection: 'crm', status: 'same' }] }, false],
    ['surfaces not checked (a read-only key)', { checked: false, reason: 'read-only key' }, false],
  ])('--check-tools: %s is drift: %s', (_name, toolSurface, expected) => {
    expect(hasDrift(driftOf(plan([change('agent/a', 'no-op')]), { toolSurface }))).toBe(expected);
  });

  it('leaves undeclared API keys out unless the environment manages its keys (pruneApiKeys)', () => {
    const keys = plan([change('apiKey/ci-control', 'unmanaged'), change('agent/stray', 'unmanaged')]);
    expect(driftOf(keys).unmanaged.map((item) => item.address)).toEqual(['agent/stray']);
    expect(driftOf(keys, { countUndeclaredKeys: true }).unmanaged.map((item) => item.address)).toEqual(['apiKey/ci-control', 'agent/stray']);
  });

  it('lists ignored differences, which never count as drift', () => {
    const ignored = [{ address: 'agent/a' as const, path: 'system', before: 'hot', after: 'yaml', rule: 'agent/a system', reason: 'PM edits' }];
    const report = driftOf(plan([change('agent/a', 'no-op')], ignored));
    expect(report.ignored).toEqual(ignored);
    expect(hasDrift(report)).toBe(false);
  });
});
