// A short name for a longer text (a folder path in a file name): FNV-1a, 64 bits. Not for anything
// an attacker chooses, nor where a collision would be wrong rather than slower; it saves loading
// node:crypto (util/sha256.ts) at start-up.
const OFFSET_BASIS = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

export function nameHash(text: string): string {
  let hash = OFFSET_BASIS;
  for (const byte of Buffer.from(text, 'utf8')) hash = ((hash ^ BigInt(byte)) * PRIME) & MASK;
  return hash.toString(16).padStart(16, '0');
}
