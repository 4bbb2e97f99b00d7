// The public part of a connection's auth: every field but the write-only ones (tokens, secrets),
// which no read shows. The connections handlers show it; migration 3 keeps it beside the sealed
// auth of the rows that were there before it (store/migrations.ts).
import type { ConnectionAuth } from '../model/api.js';

const WRITE_ONLY_AUTH_FIELDS = new Set(['token', 'secret', 'clientSecret', 'password', 'accessToken', 'refreshToken', 'value', 'apiKey']);

export function publicAuth(auth: ConnectionAuth): ConnectionAuth {
  return Object.fromEntries(Object.entries(auth).filter(([key]) => !WRITE_ONLY_AUTH_FIELDS.has(key))) as ConnectionAuth;
}
