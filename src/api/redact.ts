// Secrets never leave the process in a trace or message. Field names come from the operation
// table (SECRET_FIELD_NAMES), plus every field of a connection's `auth` object but `type`; API keys
// are also recognised by their shape wherever they appear.
import { SECRET_FIELD_NAMES } from './operations.js';

export const REDACTED = '[redacted]';
const SECRET_FIELDS = new Set<string>(SECRET_FIELD_NAMES.map((name) => name.toLowerCase()));
// The whole run of key characters after `svc_`: an environment slug may itself hold `_` and `-`
// (svc_pr-12_x_abc), so stopping at the first `_` would mask `svc_pr-12_x` and show the secret.
const API_KEY_PATTERN = /svc_[A-Za-z0-9_-]+/g;
const BEARER_PATTERN = /(bearer\s+)[^\s"',]+/gi;

export function isSecretField(name: string): boolean {
  return SECRET_FIELDS.has(name.toLowerCase());
}

/** Replaces API keys and bearer tokens inside free text (error messages, non-JSON bodies). */
export function redactText(text: string, extraSecrets: readonly string[] = []): string {
  // Known secrets first, longest first: once a pattern has rewritten part of one, it no longer matches.
  let out = text;
  for (const secret of [...extraSecrets].sort((a, b) => b.length - a.length)) {
    if (secret.length >= 4) out = out.split(secret).join(REDACTED);
  }
  return out.replace(API_KEY_PATTERN, REDACTED).replace(BEARER_PATTERN, `$1${REDACTED}`);
}

/**
 * A connection's `auth` object: every field but `type` is write-only whatever its name (the API
 * does not list them), so the whole field is secret. `auth` as a plain string (an agent's
 * `sandbox.preview.auth: signed-url`) is not.
 */
function isAuthObject(key: string, value: unknown): value is Record<string, unknown> {
  return key === 'auth' && value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isSecretAuthField(field: string, value: unknown): boolean {
  return field !== 'type' && value !== null && value !== undefined;
}

/** A deep copy with every secret field's value replaced, and secrets inside strings masked. */
export function redact(value: unknown, extraSecrets: readonly string[] = []): unknown {
  if (typeof value === 'string') return redactText(value, extraSecrets);
  if (Array.isArray(value)) return value.map((item) => redact(item, extraSecrets));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (isSecretField(key) && inner !== null && inner !== undefined) out[key] = REDACTED;
      else if (isAuthObject(key, inner)) {
        out[key] = Object.fromEntries(
          Object.entries(inner).map(([field, setting]) => [field, isSecretAuthField(field, setting) ? REDACTED : redact(setting, extraSecrets)]),
        );
      } else out[key] = redact(inner, extraSecrets);
    }
    return out;
  }
  return value;
}

/** Every string under a secret field name or a connection auth field, so they can be masked where they are echoed. */
export function secretValuesIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) secretValuesIn(item, found);
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (isSecretField(key) && typeof inner === 'string') found.push(inner);
      else if (isAuthObject(key, inner)) {
        for (const [field, setting] of Object.entries(inner)) if (isSecretAuthField(field, setting)) stringsIn(setting, found);
      } else secretValuesIn(inner, found);
    }
  }
  return found;
}

function stringsIn(value: unknown, found: string[]): void {
  if (typeof value === 'string') found.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, found);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) stringsIn(item, found);
}
