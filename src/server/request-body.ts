// What a request body must be before any handler sees it: JSON sent as `application/json`, valid
// UTF-8, nested at most MAX_JSON_DEPTH levels, no `__proto__` key (a plain object would take it as
// its prototype, so the key would vanish from hashes and stored copies), no lone surrogate, and
// every string and key within its length limit (string-limits.ts). Each failure is a 4xx naming
// the problem.
import type { IncomingHttpHeaders } from 'node:http';
import { ServiceError } from './service-error.js';
import { DEFAULT_STRING_LIMIT, fallbackUnder, KEY_LIMIT, limitUnder } from './string-limits.js';

export const MAX_JSON_DEPTH = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * `application/json` (any case, optional parameters; a charset must be utf-8). A browser can send
 * a cross-site POST only as text/plain, form-urlencoded or multipart without asking first, so this
 * also keeps other local pages from driving a cookie-authenticated session.
 */
export function isJsonContentType(headers: IncomingHttpHeaders): boolean {
  const value = headers['content-type'];
  if (typeof value !== 'string') return false;
  const [type, ...params] = value.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return params.every((param) => !param.startsWith('charset=') || /^charset="?utf-8"?$/.test(param));
}

/** Whether the request carries no body at all (no content-length above 0, not chunked). */
export function hasNoBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] === undefined && (headers['content-length'] === undefined || headers['content-length'] === '0');
}

/**
 * Whether the text holds more than `limit` opening brackets at all: with fewer, no nesting can pass
 * `limit`, and the character-by-character scan below (most of a small body's checks while the
 * server's code is still cold) is skipped.
 */
function openingsBeyond(text: string, limit: number): boolean {
  let count = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at >= 0; at = text.indexOf(bracket, at + 1)) {
      if (++count > limit) return true;
    }
  }
  return false;
}

/** Deepest nesting of `[`/`{` outside strings, stopping as soon as it passes `limit`. */
function nestingBeyond(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

const fieldPath = (parent: string, key: string | number): string => (typeof key === 'number' ? `${parent}[${key}]` : parent === '' ? key : `${parent}.${key}`);

function refuse(field: string, message: string, maxLength?: number): ServiceError {
  return new ServiceError('invalid_argument', `${field}: ${message}`, maxLength === undefined ? { field } : { field, maxLength });
}

/** Where a value sits in the body: its parent's place and its own key; the path text is built only for an error. */
interface Place {
  parent: Place | undefined;
  key: string | number;
}

function pathOf(place: Place | undefined): string {
  const keys: Array<string | number> = [];
  for (let at = place; at; at = at.parent) keys.push(at.key);
  return keys.reduceRight<string>((path, key) => fieldPath(path, key), '');
}

/** A value still to check: where it sits, the limit if it is a string, and the limit of strings below it by default. */
interface Pending {
  value: unknown;
  place: Place | undefined;
  limit: number;
  fallback: number;
}

/**
 * Walks the parsed body (its depth is already bounded) and refuses what the length limits and the
 * rules above forbid. Valid UTF-8 cannot encode a lone surrogate, so only a `\u` escape can make
 * one: without any in the text (`escapes` false), strings and keys are not searched for them.
 */
function checkValues(root: unknown, escapes: boolean): void {
  const stack: Pending[] = [{ value: root, place: undefined, limit: DEFAULT_STRING_LIMIT, fallback: DEFAULT_STRING_LIMIT }];
  while (stack.length > 0) {
    const { value, place, limit, fallback } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.length > limit) throw refuse(pathOf(place) || '(body)', `must be at most ${limit} characters (it has ${value.length})`, limit);
      if (escapes && LONE_SURROGATE.test(value)) throw refuse(pathOf(place) || '(body)', 'holds an unpaired UTF-16 surrogate (not valid Unicode text)');
    } else if (Array.isArray(value)) {
      // An array's items are held to the limit of the key that holds the array (each of `steps`).
      for (let index = 0; index < value.length; index++) stack.push({ value: value[index], place: { parent: place, key: index }, limit, fallback });
    } else if (value !== null && typeof value === 'object') {
      for (const key of Object.keys(value)) {
        const at: Place = { parent: place, key };
        if (key === '__proto__') throw refuse(pathOf(at), 'the key "__proto__" is not allowed');
        if (key.length > KEY_LIMIT)
          throw refuse(pathOf(place) || '(body)', `a property name must be at most ${KEY_LIMIT} characters (one has ${key.length})`, KEY_LIMIT);
        if (escapes && LONE_SURROGATE.test(key)) throw refuse(pathOf(at), 'the key holds an unpaired UTF-16 surrogate');
        const below = fallbackUnder(key, fallback);
        stack.push({ value: (value as Record<string, unknown>)[key], place: at, limit: limitUnder(key, below), fallback: below });
      }
    }
  }
}

/** The request body as JSON; an empty body is `{}` (organizations.get has none). */
export function parseRequestBody(raw: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new ServiceError('invalid_argument', 'the request body is not valid UTF-8');
  }
  if (text.trim() === '') return {};
  if (openingsBeyond(text, MAX_JSON_DEPTH) && nestingBeyond(text, MAX_JSON_DEPTH))
    throw new ServiceError('invalid_argument', `the request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    throw new ServiceError('invalid_argument', 'the request body is not valid JSON');
  }
  checkValues(body, text.includes('\\u'));
  return body;
}
