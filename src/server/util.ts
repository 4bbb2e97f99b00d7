// Small helpers shared by the server modules: ids, clocks, hashes, JSON columns.
import { hash, randomBytes } from 'node:crypto';

/**
 * Random bytes for ids, drawn from the CSPRNG in blocks (as node's randomUUID does): one
 * randomBytes call per id was a visible share of a write's cost.
 */
const ID_BYTES = 10;
const ID_POOL_IDS = 256;
let idPool = Buffer.alloc(0);
let idPoolOffset = 0;

export function newId(prefix: string): string {
  if (idPoolOffset + ID_BYTES > idPool.length) {
    idPool = randomBytes(ID_BYTES * ID_POOL_IDS);
    idPoolOffset = 0;
  }
  const hex = idPool.toString('hex', idPoolOffset, idPoolOffset + ID_BYTES);
  idPoolOffset += ID_BYTES;
  return `${prefix}_${hex}`;
}

export function nowIso(): string {
  return new Date().toISOString();
}

/** One-shot crypto.hash: half the cost of a Hash object per call (every write hashes its definition). */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

export { canonicalJson } from '../util/canonical-json.js';

export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined) return fallback;
  return JSON.parse(text) as T;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Lets pending I/O (other requests) run before continuing a long piece of work. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
