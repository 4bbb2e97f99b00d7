// The public part of a connection's auth: every field but the write-only ones (tokens, secrets),
// which no read shows; and the copy of it that may be kept in plain text beside the sealed auth,
// so that a list need not decrypt every row (handlers/connections.ts, migration 3).
import type { ConnectionAuth } from '../model/api.js';

const WRITE_ONLY_AUTH_FIELDS = new Set(['token', 'secret', 'clientSecret', 'password', 'accessToken', 'refreshToken', 'value', 'apiKey']);

export function publicAuth(auth: ConnectionAuth): ConnectionAuth {
  return Object.fromEntries(Object.entries(auth).filter(([key]) => !WRITE_ONLY_AUTH_FIELDS.has(key))) as ConnectionAuth;
}

/**
 * The plain-text copy of what reads show of `auth`, or null: kept only for an auth that shows
 * nothing but its type. Reads show the other fields they do not know to be secret, but field names
 * beyond `type` are not part of the API's description and the client treats them all as
 * write-only, so at rest they stay sealed, and such an auth is decrypted on every read, as before.
 */
export function plainCopyOf(auth: ConnectionAuth): string | null {
  const shown = publicAuth(auth);
  const fields = Object.keys(shown);
  return fields.length === 1 && fields[0] === 'type' && typeof shown.type === 'string' ? JSON.stringify({ type: shown.type }) : null;
}
