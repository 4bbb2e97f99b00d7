// SHA-256, with node:crypto loaded on first use. Loading it pulls in 16 of Node's internal modules
// (pbkdf2, ciphers, x509, ...): ~2.5 ms of every process that imports it at start-up, where a plan
// of a small project whose caches are warm hashes nothing at all (issue 17). Code on the start-up
// path hashes through here rather than importing node:crypto; the local control plane (a
// long-running server) imports it directly.
import { createRequire } from 'node:module';

type NodeCrypto = typeof import('node:crypto');
let crypto: NodeCrypto | undefined;

/** node:crypto, loaded when first asked for. require, not import(): the bundle's chunks run through vm.Script (code-cache.ts), where import() has no loader. */
export function nodeCrypto(): NodeCrypto {
  crypto ??= createRequire(import.meta.url)('node:crypto') as NodeCrypto;
  return crypto;
}

export function sha256(data: string | Uint8Array): Buffer {
  return nodeCrypto().createHash('sha256').update(data).digest();
}

export function sha256Hex(data: string | Uint8Array): string {
  return nodeCrypto().createHash('sha256').update(data).digest('hex');
}
