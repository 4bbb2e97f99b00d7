// The public part of a connection's auth: its type, and nothing else. Every other field is
// write-only whatever its name (the API's description names none beyond \`type\`; the client treats
// them all so): no operation shows one, to any key. That is also the copy kept in plain text beside
// the sealed auth, so that a list need not decrypt any row (handlers/connections.ts, migration 3).
import type { ConnectionAuth } from '../model/api.js';

export function publicAuth(auth: ConnectionAuth): ConnectionAuth {
  return { type: auth.type };
}

/** The plain-text copy of what reads show of \`auth\`, or null for an auth without a string type. */
export function plainCopyOf(auth: ConnectionAuth): string | null {
  return typeof auth.type === 'string' ? JSON.stringify(publicAuth(auth)) : null;
}
