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
} from '../../src/state/normalize.js';
import { remoteFingerprint } from '../../src/engine/remote-fingerprint.js';

describe('normalize', () => {
  it.each([
    [
      'organization',
      () => normalizeOrganization({ id: 'o1', slug: 'acme', name: 'Acme', createdAt: 't' }),
      { name: 'current', id: 'o1', spec: { name: 'Acme' } },
    ],
    [
      'environment',
      () => normalizeEnvironment({ id: 'e1', slug: 'staging', name: 'Staging', kind: 'preview', createdAt: 't', spend: { dailyUsd: 5 } }),
      { name: 'staging', id: 'e1', spec: { name: 'Staging', kind: 'preview', spend: { dailyUsd: 5 } } },
    ],
    ['secret', () => normalizeSecret({ id: 's1', name: 'db', updatedAt: 't' }), { name: 'db', id: 's1', spec: {} }],
    [
      'provider',
      () => normalizeProvider({ id: 'p1', name: 'openai', type: 'openai', baseUrl: null, hasSecret: true }),
      { name: 'openai', id: 'p1', spec: { type: 'openai', baseUrl: null } },
    ],
    [
      'connection',
      () =>
        normalizeConnection({
          id: 'c1',
          name: 'gh',
          url: 'https://x',
          transport: 'streamable-http',
          auth: { type: 'svc-signed' },
          hookEvents: ['a'],
          createdAt: 't',
        }),
      { name: 'gh', id: 'c1', spec: { url: 'https://x', transport: 'streamable-http', hookEvents: ['a'], auth: { type: 'svc-signed' } } },
    ],
    [
      'agent',
      () =>
        normalizeAgent({
          agentId: 'a1',
          slug: 'bot',
          version: 3,
          definition: { name: 'Bot', model: { provider: 'p', model: 'm' }, system: 's', tools: [], policies: {}, limits: {} },
        }),
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
    const configured = { auth: { type: 'svc-signed' } };
    expect(remoteFingerprint(echoing, configured)).toBe(remoteFingerprint(normalizeConnection(base), configured));
  });

  it('grants: named by connection name, from the grant or from the id map; unnamed ones skipped', () => {
    const grant = { id: 'g1', connectionId: 'c1', identity: { scope: 'user', id: 'alice', display: 'Alice' }, status: 'active' };
    expect(normalizeGrant({ ...grant, connection: 'gh' }, new Map())).toMatchObject({
      name: 'gh:user:alice',
      spec: { connection: 'gh', identity: { scope: 'user', id: 'alice' } },
    });
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
});

describe('the fingerprint, computed on first read', () => {
  const raw = {
    agentId: 'ag_1',
    slug: 'support',
    version: 3,
    definition: { model: { provider: 'p', model: 'm' }, system: 'hi' },
    createdAt: '2026-01-01T00:00:00Z',
  };

  it('is the fingerprint of the resource without a configuration, stable across reads, and part of the JSON form', () => {
    const resource = normalizeAgent(raw as never);
    const expected = remoteFingerprint(resource);
    expect(resource.fingerprint).toBe(expected);
    expect(resource.fingerprint).toBe(expected);
    expect(JSON.parse(JSON.stringify(resource)).fingerprint).toBe(expected);
    expect({ ...resource }.fingerprint).toBe(expected);
  });

  it('follows the resource it was given: another version, another fingerprint', () => {
    const a = normalizeAgent(raw as never);
    const b = normalizeAgent({ ...raw, version: 4 } as never);
    expect(a.fingerprint).not.toBe(b.fingerprint);
  });

  it('fingerprint: read through one getter for every resource, computed from the resource, hidden from keys and JSON order as before', () => {
    const raw = (id: string, type: string) => ({ id, name: `p-${id}`, type, baseUrl: null, hasSecret: true, updatedAt: 't' });
    const a = normalizeProvider(raw('p1', 'openai'));
    const b = normalizeProvider(raw('p2', 'azure'));
    // A getter closing over each resource's values gave every resource a hidden class of its own.
    expect(Object.getOwnPropertyDescriptor(a, 'fingerprint')?.get).toBe(Object.getOwnPropertyDescriptor(b, 'fingerprint')?.get);
    expect(a.fingerprint).toBe(remoteFingerprint({ kind: 'provider', id: 'p1', spec: a.spec, remote: raw('p1', 'openai') }));
    expect(b.fingerprint).toBe(remoteFingerprint({ kind: 'provider', id: 'p2', spec: b.spec, remote: raw('p2', 'azure') }));
    expect(a.fingerprint).not.toBe(b.fingerprint);
    expect(Object.keys(a)).toEqual(['kind', 'name', 'id', 'spec', 'remote', 'fingerprint']);
    expect(JSON.parse(JSON.stringify(a))).toEqual({ kind: 'provider', name: 'p-p1', id: 'p1', spec: a.spec, remote: a.remote, fingerprint: a.fingerprint });
    const copy = { ...a };
    expect(copy.fingerprint).toBe(a.fingerprint);
    expect(Object.getOwnPropertySymbols(copy)).toEqual([]);
  });
});
