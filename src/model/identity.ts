// What `agentform whoami` learns about the current credential.
import type { ApiKey, Environment, Organization } from './api.js';

export interface Identity {
  /** Null when the credential may not read it (a key without the read scope). */
  organization: Pick<Organization, 'id' | 'slug' | 'name'> | null;
  /** The environment the credential acts on; null when it cannot be known (a cookie without AGENTFORM_ENVIRONMENT). */
  environment: (Pick<Environment, 'slug'> & Partial<Pick<Environment, 'id' | 'name' | 'kind'>>) | null;
  credential: 'api-key' | 'cookie';
  /** The key as apiKeys.list shows it (never its token); null when it could not be found. */
  key: (Pick<ApiKey, 'id' | 'name'> & Partial<Pick<ApiKey, 'expiresAt' | 'createdAt'>>) | null;
  /** The key's scopes; null when unknown (list denied, missing, or the key not in it). */
  scopes: string[] | null;
  /** Why something is unknown, for a person to read. */
  notes: string[];
}
