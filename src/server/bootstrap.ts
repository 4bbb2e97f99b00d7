// First start over a data dir: organization `local`, the requested environments, and one
// read+control key per environment written to credentials.json. Later starts reuse all of it and
// only add what is missing (a new environment, or a key whose token was lost or revoked). It runs
// under the database write lock, so two processes starting at once agree on one set of keys.
import { insertApiKey, tokenHash } from './auth.js';
import { readCredentials, writeCredentials } from './credentials.js';
import { fillDefaults, type ServerDefaults } from './defaults.js';
import { insertEnvironment } from './handlers/environments.js';
import type { Db } from './store/db.js';
import { writeTx } from './store/db.js';
import { newId, nowIso } from './util.js';

export const LOCAL_ORGANIZATION = 'local';
const BOOTSTRAP_ACTOR = 'local-control-plane';
const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

function ensureOrganization(db: Db): string {
  const row = db.prepare('SELECT id FROM organizations WHERE slug = ?').get(LOCAL_ORGANIZATION) as { id: string } | undefined;
  if (row) return row.id;
  const id = newId('org');
  const now = nowIso();
  db.prepare('INSERT INTO organizations (id, slug, name, idp_organization_id, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, ?)').run(
    id,
    LOCAL_ORGANIZATION,
    'Local',
    now,
    now,
  );
  return id;
}

function usableToken(db: Db, environmentId: string, token: string | undefined): boolean {
  if (!token) return false;
  const row = db.prepare('SELECT environment_id, revoked_at, expires_at, scopes FROM api_keys WHERE token_hash = ?').get(tokenHash(token)) as
    | { environment_id: string; revoked_at: string | null; expires_at: string | null; scopes: string }
    | undefined;
  if (!row || row.environment_id !== environmentId || row.revoked_at) return false;
  if (row.expires_at && Date.parse(row.expires_at) <= Date.now()) return false;
  const scopes = JSON.parse(row.scopes) as string[];
  return scopes.includes('read') && scopes.includes('control');
}

type BootstrapKey = { name: string; scopes: string[]; identityScopes?: string[]; spend?: object; expiresAt?: string | null };

export interface LocalEnvironment {
  slug: string;
  /** The kind a new environment gets (it cannot change later); default: the profile's default. */
  kind?: string;
}

/**
 * Lifts the archive of each named environment: the recovery for an archive made by mistake. Only
 * the operator holding the data dir can do it, as no key of an archived environment works and no
 * other environment's key may act on it.
 */
function unarchiveEnvironments(db: Db, organizationId: string, slugs: readonly string[]): void {
  for (const slug of slugs) {
    const row = db.prepare('SELECT id FROM environments WHERE organization_id = ? AND slug = ?').get(organizationId, slug) as { id: string } | undefined;
    if (!row) throw new Error(`--unarchive: there is no environment ${JSON.stringify(slug)} in this data dir`);
    db.prepare('UPDATE environments SET archived_at = NULL, updated_at = ? WHERE id = ?').run(nowIso(), row.id);
  }
}

/**
 * Returns every usable environment token of credentials.json (slug → key). New keys and environments get the profile's
 * defaults. The environments in `unarchive` are unarchived first.
 */
export function bootstrap(
  db: Db,
  dataDir: string,
  environments: LocalEnvironment[],
  url: string,
  defaults: ServerDefaults,
  unarchive: readonly string[] = [],
): Record<string, string> {
  for (const { slug } of environments) {
    if (!SLUG.test(slug)) throw new Error(`invalid environment slug ${JSON.stringify(slug)}: use lowercase letters, digits and -`);
  }
  return writeTx(db, () => {
    const organizationId = ensureOrganization(db);
    unarchiveEnvironments(db, organizationId, unarchive);
    const credentials = readCredentials(dataDir);
    for (const { slug, kind } of environments) {
      let env = db.prepare('SELECT id FROM environments WHERE organization_id = ? AND slug = ?').get(organizationId, slug) as { id: string } | undefined;
      if (!env) env = { id: insertEnvironment(db, organizationId, { slug, name: slug, ...(kind ? { kind } : {}) }, BOOTSTRAP_ACTOR, defaults.environment).id };
      if (usableToken(db, env.id, credentials.environments[slug]?.token)) continue;
      const { token } = insertApiKey(db, {
        ...fillDefaults<BootstrapKey>({ name: `local-${slug}`, scopes: ['read', 'control'] }, defaults.apiKey),
        environmentId: env.id,
        environmentSlug: slug,
        createdBy: BOOTSTRAP_ACTOR,
      });
      credentials.environments[slug] = { token };
    }
    credentials.url = url;
    // Written while the write lock is held: a second process waits, then reads this file.
    writeCredentials(dataDir, credentials);
    return Object.fromEntries(Object.entries(credentials.environments).map(([slug, entry]) => [slug, entry.token]));
  });
}
