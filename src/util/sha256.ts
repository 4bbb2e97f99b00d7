// SHA-256, with node:crypto loaded on first use. Loading it pulls in many of Node's internal modules
// (pbkdf2, ciphers, x509, ...), a cost to every process that imports it at start-up, where a plan
// of a small project whose caches are warm hashes nothing at all. Code on the start-up
// path hashes through here rather than importing node:crypto; the local control plane (a
// long-running server) imports it directly.
import { createRequire } from 'node:module';

let crypto: typeof import('node:crypto') | undefined;

/** The hex SHA-256 of a text (as UTF-8) or of bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  // require, not import(): the bundle's chunks run through vm.Script (code-cache.ts), where import() has no loader.
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  // One-shot (Node >= 20.12): half the cost of a Hash object per call.
  return crypto.hash('sha256', data, 'hex');
}
