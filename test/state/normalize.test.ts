import { describe, expect, it } from 'vitest';
import {
  normalizeAgent,
  normalizeApiKeys,
  normalizeConnection,
  normalizeEnvironment,
  normalizeGrant,
  normalizeOrganization,
  normalizeProvider,
  normalizeSecret,
  remoteFingerprint,
} from '../../src/state/normalize.js';

describe('normalize', () => {
  it.each([
    ['organization', () => normalizeOrganization({ id: 'o1', slug: 'acme', name: 'Acme', createdAt: 't' }), { name: 'current', id: 'o1', spec: { name: 'Acme' } }],
    ['environment', () => normalizeEnvironment({ id: 'e1', slug: 'staging', name: 'Staging', kind: 'preview', createdAt: 't', spend: { dailyUsd: 5 } }), { name: 'staging', id: 'e1', spec: { name: 'Staging', kind: 'preview', spend: { dailyUsd: 5 } } }],
    ['secret', () => normalizeSecret({ id: 's1', name: 'db', updatedAt: 't' }), { name: 'db', id: 's1', spec: {} }],
    ['provider', () => normalizeProvider({ id: 'p1', name: 'openai', type: 'openai', baseUrl: null, hasSecret: true }), { name: 'openai', id: 'p1', spec: { type: 'openai', baseUrl: null } }],
    [
      'connection',
      () => normalizeConnection({ id: 'c1', name: 'gh', url: 'https://x', transport: 'streamable-http', auth: { type: 'svc-signed' }, hookEvents: ['a'], createdAt: 't' }),
      { name: 'gh', id: 'c1', spec: { url: 'https://x', transport: 'streamable-http', hookEvents: ['a'], auth: { type: 'svc-signed' } } },
    ],
    [
      'agent',
      () => normalizeAgent({ agentId: 'a1', slug: 'bot', version: 3, definition: { name: 'Bot', model: { provider: 'p', model: 'm' }, system: 's', tools: [], policies: {}, limits: {} } }),
      { name: 'bot', id: 'a1', spec: { name: 'Bot', model: { provider: 'p', model: 'm' }, system: 's', tools: [], policies: {}, limits: {} } },
    ],
  ])('%s', (_, run, expected) => {
    expect(run()).toMatchObject(expected);
  });

  it('connections: of auth only type is kept, in the spec and the raw object, whatever the server echoes', () => {
    const base = { id: 'c1', name: 'gh', auth: { type: 'svc-signed' }, updatedAt: 't' };
    const echoing = normalizeConnection({ ...base, auth: { type: 'svc-signed', clientSecret: 'SENTINEL', audience: '***' } });
    expect(echoing.spec).toEqual({ auth: { type: 'svc-signed' } });
    expect(JSON.stringify(echoing)).not.toContain('SENTINEL');
    // Echoed or not, masked or not: the same remote state, so a plan settles either way.
    expect(echoing.fingerprint).toBe(normalizeConnection(base).fingerprint);
  });

  it('grants: named by connection name, from the grant or from the id map; unnamed ones skipped', () => {
    const grant = { id: 'g1', connectionId: 'c1', identity: { scope: 'user', id: 'alice', display: 'Alice' }, status: 'active' };
    expect(normalizeGrant({ ...grant, connection: 'gh' }, new Map())).toMatchObject({ name: 'gh:user:alice', spec: { connection: 'gh', identity: { scope: 'user', id: 'alice' } } });
    expect(normalizeGrant(grant, new Map([['c1', 'github']]))?.name).toBe('github:user:alice');
    expect(normalizeGrant(grant, new Map())).toBeUndefined();
  });

  it('api keys: revoked ones skipped, duplicates of a name disambiguated (newest keeps it)', () => {
    const keys = normalizeApiKeys([
      { id: 'k1', name: 'ci', scopes: ['read'], createdAt: '2024-01-01T00:00:00Z', lastUsedAt: 'x' },
      { id: 'k2', name: 'ci', scopes: ['read', 'control'], createdAt: '2024-02-01T00:00:00Z' },
      { id: 'k3', name: 'old', scopes: ['read'], revokedAt: '2024-01-05T00:00:00Z' },
    ]);
    expect(keys.map((key) => [key.name, key.id, key.spec])).toEqual([
      ['ci', 'k2', { scopes: ['read', 'control'] }],
      ['ci#k1', 'k1', { scopes: ['read'] }],
    ]);
  });

  it('fingerprints ignore key order and volatile fields, not real changes', () => {
    expect(remoteFingerprint({ id: 'k', name: 'a', lastUsedAt: '1' })).toBe(remoteFingerprint({ name: 'a', id: 'k', lastUsedAt: '2' }));
    expect(remoteFingerprint({ agentId: 'a', image: { status: 'baking' } })).toBe(remoteFingerprint({ agentId: 'a', image: { status: 'ready' } }));
    expect(remoteFingerprint({ id: 'k', name: 'a' })).not.toBe(remoteFingerprint({ id: 'k', name: 'b' }));
  });
});
