// How large one answer may be: 64 MiB, or AGENTFORM_MAX_RESPONSE_BYTES. A server that sends without
// end (or a body far beyond any list this project reads) must fail the request with a clear message,
// not grow the CLI until V8 refuses a string. A value that is not a whole number of bytes is an
// error, not a silent default.
import { UserError } from '../errors.js';
import type { Variables } from '../util/variables.js';

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** The largest limit accepted: V8's longest string (~512 MiB) holds a body this large, decoded. */
const LARGEST_LIMIT_BYTES = 512 * 1024 * 1024 - 64;

export function maxResponseBytesFrom(env: Variables): number {
  const raw = env.AGENTFORM_MAX_RESPONSE_BYTES?.trim();
  if (!raw) return DEFAULT_MAX_RESPONSE_BYTES;
  const bytes = /^\d{1,12}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(bytes >= 1024 && bytes <= LARGEST_LIMIT_BYTES)) {
    throw new UserError(
      `AGENTFORM_MAX_RESPONSE_BYTES must be a whole number of bytes from 1024 to ${LARGEST_LIMIT_BYTES}, not ${JSON.stringify(raw)}`,
      `e.g. AGENTFORM_MAX_RESPONSE_BYTES=268435456 for 256 MiB (the default is ${DEFAULT_MAX_RESPONSE_BYTES}, 64 MiB)`,
    );
  }
  return bytes;
}

/** A limit as messages show it: `64 MiB`, `1.5 KiB` or `1000 bytes`. */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ['MiB', 1024 * 1024],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}
