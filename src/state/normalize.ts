// Remote objects → ActualResource, shaped like DesiredResource.spec of the same kind (see the
// per-kind shapes at the bottom of src/model/resources.ts), so the engine compares like with like.
// Pure: no calls, no clock.
import type { AgentVersionWithSlug, ApiKey, Connection, ConnectionGrant, Environment, ModelProvider, Organization, SecretMetadata } from '../model/api.js';
import type { ActualResource, JsonObject, JsonValue, ResourceKind } from '../model/resources.js';
import { remoteFingerprint } from '../engine/remote-fingerprint.js';
import { jsonOf } from '../model/specs.js';
import { lazyProperty } from '../util/lazy-property.js';

/** Copies the listed fields that are present (undefined ones are left out, null kept). */
function pick(source: object, fields: readonly string[]): JsonObject {
  const record = source as Record<string, unknown>;
  const out: JsonObject = {};
  for (const field of fields) {
    if (record[field] !== undefined) out[field] = record[field] as JsonValue;
  }
  return out;
}

const asJson = jsonOf;

/**
 * The fingerprint is computed on first read and kept: a plan reads every remote object, but only
 * the objects it deletes (and saved plans) need one. Nothing changes the resource after this.
 */
function resource(kind: ResourceKind, name: string, id: string, spec: JsonObject, raw: object): ActualResource {
  const normalized = { kind, name, id, spec, remote: asJson(raw) } as ActualResource;
  return Object.defineProperty(normalized, 'fingerprint', LAZY_FINGERPRINT);
}

// Reads its inputs from the resource itself (`id`, `spec` and `remote` are never reassigned).
const LAZY_FINGERPRINT = lazyProperty((resource: ActualResource) => remoteFingerprint(resource));

/** The organization has one address: `organization/current`. */
export function normalizeOrganization(raw: Organization): ActualResource {
  return resource('organization', 'current', raw.id, pick(raw, ['name']), raw);
}

export function normalizeEnvironment(raw: Environment): ActualResource {
  return resource('environment', raw.slug, raw.id, pick(raw, ['name', 'kind', 'group', 'expiresAt', 'spend', 'retention']), raw);
}

export function normalizeSecret(raw: SecretMetadata): ActualResource {
  return resource('secret', raw.name, raw.id, {}, raw);
}

export function normalizeProvider(raw: ModelProvider): ActualResource {
  return resource('provider', raw.name, raw.id, pick(raw, ['type', 'baseUrl']), raw);
}

/**
 * Of `auth`, only `type` is kept, in the spec and in the raw object alike: the other fields are
 * write-only, and a server may or may not echo them (or echo them masked), so comparing,
 * fingerprinting or showing them would never settle, and could show a secret.
 */
export function normalizeConnection(raw: Connection): ActualResource {
  const auth: unknown = raw.auth;
  const kept = auth !== null && typeof auth === 'object' && !Array.isArray(auth) ? pick(auth, ['type']) : auth;
  const withoutSecrets = kept === undefined ? raw : { ...raw, auth: kept };
  const spec = pick(withoutSecrets, ['url', 'transport', 'channel', 'hooksUrl', 'hookEvents', 'auth']);
  return resource('connection', raw.name, raw.id, spec, withoutSecrets);
}

/** `<connection>:<scope>:<id>`, the grant's address name. */
export function grantName(connection: string, identity: { scope: string; id: string }): string {
  return `${connection}:${identity.scope}:${identity.id}`;
}

/**
 * A grant names its connection by name (`connection`) or only by id (`connectionId`); the
 * id → name map covers the latter. A grant whose connection cannot be named is skipped (undefined).
 */
export function normalizeGrant(raw: ConnectionGrant, connectionNames: ReadonlyMap<string, string>): ActualResource | undefined {
  const connection = raw.connection ?? connectionNames.get(raw.connectionId);
  if (!connection || !raw.identity) return undefined;
  const identity = { scope: raw.identity.scope, id: raw.identity.id };
  return resource('grant', grantName(connection, identity), raw.id, { connection, identity }, raw);
}

/** The agent spec is its definition; the address name is the slug. */
export function normalizeAgent(raw: AgentVersionWithSlug): ActualResource {
  return resource('agent', raw.slug, raw.agentId, asJson(raw.definition ?? {}), raw);
}

/**
 * Active keys only (a revoked key is history, not state). Keys are addressed by name; when several
 * active keys share one (e.g. a replace whose revoke failed), the newest keeps the name and the
 * others become `<name>#<id>`, so they show up as unmanaged (or are pruned) instead of vanishing.
 */
export function normalizeApiKeys(raw: ApiKey[]): ActualResource[] {
  const active = raw.filter((key) => !key.revokedAt);
  const newestFirst = [...active].sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? ''));
  const taken = new Set<string>();
  return newestFirst.map((key) => {
    const name = taken.has(key.name) ? `${key.name}#${key.id}` : key.name;
    taken.add(key.name);
    return resource('apiKey', name, key.id, pick(key, ['scopes', 'identityScopes', 'spend', 'expiresAt']), key);
  });
}
