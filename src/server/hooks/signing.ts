// Hook delivery signatures (scheme from api-contract.md, assumed):
//   x-svc-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 over `${t}.${rawBody}`>
// The timestamp is signed too so a captured delivery cannot be replayed later than the
// receiver's tolerance window.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-svc-signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;
const SIGNING_SECRET_PREFIX = 'whsec_';
const HEX_SHA256 = /^[0-9a-f]{64}$/;

export interface VerifyOptions {
  /** Largest accepted |now - t| in seconds (default 300). */
  toleranceSeconds?: number;
  /** Clock override for tests. */
  nowSeconds?: number;
}

function currentUnixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function hmacHex(timestamp: number, body: string, secret: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** The `x-svc-signature` header value for `body`. */
export function signPayload(body: string, secret: string, nowSeconds: number = currentUnixSeconds()): string {
  if (!secret) throw new Error('a signing secret is required');
  const timestamp = Math.floor(nowSeconds);
  return `t=${timestamp},v1=${hmacHex(timestamp, body, secret)}`;
}

interface ParsedHeader {
  timestamp: number;
  signatures: string[];
}

function parseHeader(header: string): ParsedHeader | undefined {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,15}$/.test(value) || timestamp !== undefined) return undefined;
      timestamp = Number(value);
    } else if (key === 'v1') {
      signatures.push(value.toLowerCase());
    }
    // Unknown schemes (v0, v2, ...) are ignored so the format can grow.
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

/** Equal-length compare whose time does not depend on where the first difference is. */
function hexDigestsEqual(expectedHex: string, candidateHex: string): boolean {
  // Length and alphabet are public (always 64 hex chars), so rejecting early on them leaks nothing.
  if (!HEX_SHA256.test(candidateHex)) return false;
  return timingSafeEqual(Buffer.from(expectedHex, 'hex'), Buffer.from(candidateHex, 'hex'));
}

/**
 * Whether `header` is a valid signature of `body` under `secret`, made within the tolerance
 * window. Several `v1=` entries are allowed (e.g. during secret rotation); any match counts.
 */
export function verifySignature(body: string, header: string, secret: string, opts: VerifyOptions = {}): boolean {
  if (!secret || typeof header !== 'string') return false;
  const parsed = parseHeader(header);
  if (!parsed) return false;
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = opts.nowSeconds ?? currentUnixSeconds();
  if (Math.abs(now - parsed.timestamp) > tolerance) return false;
  const expected = hmacHex(parsed.timestamp, body, secret);
  let matched = false;
  // Check every candidate (no early exit) so timing does not reveal which one matched.
  for (const candidate of parsed.signatures) {
    if (hexDigestsEqual(expected, candidate)) matched = true;
  }
  return matched;
}

/** A fresh per-connection signing secret: 32 random bytes, base64url, with a recognisable prefix. */
export function generateSigningSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}
