// "Changed since plan" (issue 44, item 6): what of a remote object the plan depends on. A server
// field that changes by itself, nested in a definition or not, is churn and must not block a write;
// a field the configuration manages, and any write (the write marks), must.
import { describe, expect, it } from 'vitest';
import { remoteFingerprint } from '../../src/engine/remote-fingerprint.js';
import type { JsonObject } from '../../src/model/resources.js';
import { normalizeAgent, normalizeApiKeys, normalizeConnection, normalizeProvider, normalizeSecret } from '../../src/state/normalize.js';

const definition = {
  name: 'Bot',
  model: { provider: 'p', model: 'm', resolvedAt: '2026-01-01T00:00:01Z' },
  system: 's',
  tools: [{ type: 'builtin', name: 'clock', serverRevision: 7 }],
  policies: { toolCalls: { byTool: { shell: 'deny' } } },
  sandbox: { tools: { allow: ['grep', 'ls'] } },
  limits: { maxTurns: 3 },
  description: 'server default',
};
/** What the configuration sets: not `limits`, not the unknown fields; `description` left to the server. */
const configured: JsonObject = {
  name: 'Bot',
  model: { provider: 'p', model: 'm' },
  tools: [{ type: 'builtin', name: 'clock' }],
  policies: { toolCalls: { byTool: { shell: 'deny' } } },
  sandbox: { tools: { allow: ['grep', 'ls'] } },
  description: null,
};

type Raw = { agentId: string; slug: string; version: number; definition: JsonObject } & JsonObject;
const base: Raw = { agentId: 'agt_1', slug: 'bot', version: 3, definition: definition as JsonObject, observedAt: 'a' };

/** The base agent with `edit` applied to a copy of its raw form. */
function agentAfter(edit: (raw: Raw) => void) {
  const raw = structuredClone(base);
  edit(raw);
  return normalizeAgent(raw as never);
}
const def = (raw: Raw) => raw.definition as Record<string, Record<string, unknown>>;

describe('the fingerprint of a configured agent', () => {
  it.each<[string, (raw: Raw) => void, boolean]>([
    ['nothing', () => undefined, true],
    ['another key order', (raw) => void (raw.definition = Object.fromEntries(Object.entries(raw.definition).reverse())), true],
    ['a nested unknown field new on every read (model.resolvedAt)', (raw) => void (def(raw).model!.resolvedAt = '2026-01-01T00:00:02Z'), true],
    [
      'an unknown field inside a configured list element',
      (raw) => void ((def(raw).tools as unknown as Array<Record<string, unknown>>)[0]!.serverRevision = 8),
      true,
    ],
    ['a field the configuration does not set (kept as it is now by the write)', (raw) => void (def(raw).limits!.maxTurns = 9), true],
    ['a record field new on every read (observedAt)', (raw) => void (raw.observedAt = 'b'), true],
    ['a set in another order', (raw) => void (def(raw).sandbox!.tools = { allow: ['ls', 'grep'] }), true],
    ['a configured field', (raw) => void (def(raw).model!.model = 'n'), false],
    ['a field the configuration leaves to the server with null (the write resets it)', (raw) => void (raw.definition.description = 'edited'), false],
    [
      'an entry added to a map kept whole (byTool)',
      (raw) => void ((def(raw).policies!.toolCalls as Record<string, unknown>).byTool = { shell: 'deny', rm: 'allow' }),
      false,
    ],
    [
      'a list element the write drops',
      (raw) => void (def(raw).tools = [...(def(raw).tools as unknown as unknown[]), { type: 'builtin', name: 'extra' }] as never),
      false,
    ],
    ['a set with another member', (raw) => void (def(raw).sandbox!.tools = { allow: ['grep', 'rm'] }), false],
    ['a new version (a write, of any field)', (raw) => void (raw.version = 4), false],
    ['promotedFrom', (raw) => void (raw.promotedFrom = { environment: 'staging', version: 2 }), false],
    ['the id (deleted and created again)', (raw) => void (raw.agentId = 'agt_2'), false],
  ])('%s: same fingerprint = %s', (_name, edit, same) => {
    const before = normalizeAgent(structuredClone(base) as never);
    expect(remoteFingerprint(agentAfter(edit), configured) === remoteFingerprint(before, configured)).toBe(same);
  });
});

describe('the fingerprint of a resource the configuration does not declare (a delete)', () => {
  it.each<[string, () => ReturnType<typeof normalizeAgent>, () => ReturnType<typeof normalizeAgent>, boolean]>([
    [
      'a definition field changed without a write',
      () => normalizeAgent(base as never),
      () => agentAfter((raw) => void (raw.definition.system = 'other')),
      true,
    ],
    ['a new agent version', () => normalizeAgent(base as never), () => agentAfter((raw) => void (raw.version = 4)), false],
    [
      'updatedAt (a write)',
      () => normalizeSecret({ id: 's', name: 'a', updatedAt: '1' }),
      () => normalizeSecret({ id: 's', name: 'a', updatedAt: '2' }),
      false,
    ],
    ['the id', () => normalizeSecret({ id: 's', name: 'a' }), () => normalizeSecret({ id: 't', name: 'a' }), false],
    [
      'lastUsedAt',
      () => normalizeApiKeys([{ id: 'k', name: 'a', scopes: ['read'], lastUsedAt: '1' }])[0]!,
      () => normalizeApiKeys([{ id: 'k', name: 'a', scopes: ['read'], lastUsedAt: '2' }])[0]!,
      true,
    ],
  ])('%s: same fingerprint = %s', (_name, a, b, same) => {
    expect(remoteFingerprint(a()) === remoteFingerprint(b())).toBe(same);
    expect(a().fingerprint).toBe(remoteFingerprint(a()));
  });
});

describe('other kinds, configured', () => {
  it.each<[string, () => ReturnType<typeof normalizeAgent>, () => ReturnType<typeof normalizeAgent>, JsonObject, boolean]>([
    [
      'a provider field not configured',
      () => normalizeProvider({ id: 'p', name: 'a', type: 't', baseUrl: 'x' }),
      () => normalizeProvider({ id: 'p', name: 'a', type: 't', baseUrl: 'y' }),
      { type: 't' },
      true,
    ],
    [
      'a configured provider field',
      () => normalizeProvider({ id: 'p', name: 'a', type: 't' }),
      () => normalizeProvider({ id: 'p', name: 'a', type: 'u' }),
      { type: 't' },
      false,
    ],
    [
      'an unknown connection field',
      () => normalizeConnection({ id: 'c', name: 'gh', auth: { type: 't' }, observedAt: '1' } as never),
      () => normalizeConnection({ id: 'c', name: 'gh', auth: { type: 't' }, observedAt: '2' } as never),
      { auth: { type: 't' } },
      true,
    ],
    [
      'a hookEvents set in another order',
      () => normalizeConnection({ id: 'c', name: 'gh', auth: { type: 't' }, hookEvents: ['a', 'b'] }),
      () => normalizeConnection({ id: 'c', name: 'gh', auth: { type: 't' }, hookEvents: ['b', 'a'] }),
      { auth: { type: 't' }, hookEvents: ['a', 'b'] },
      true,
    ],
  ])('%s: same fingerprint = %s', (_name, a, b, wanted, same) => {
    expect(remoteFingerprint(a(), wanted) === remoteFingerprint(b(), wanted)).toBe(same);
  });
});
