// Names are what a reviewer reads in a plan, `whoami` and `org`: a control character in one
// (`ESC[1A` moves the cursor, `\r` or `\n` forges a line) has no honest use, so the local control
// plane refuses it where a name is given, with a 400 naming the field.
import type { Rpc } from '../api/operations.js';
import { firstControlCharacter } from '../util/control-characters.js';
import { ServiceError } from './service-error.js';

/** The name fields of each request that sets one, as paths into the body. */
const NAME_FIELDS: Partial<Record<Rpc, readonly (readonly string[])[]>> = {
  'apiKeys.create': [['key', 'name']],
  'secrets.create': [['name']],
  'providers.create': [['name']],
  'providers.update': [['name']],
  'connections.create': [['name']],
  'connections.update': [['name']],
  'environments.create': [['slug'], ['name'], ['kind'], ['group']],
  'environments.update': [['slug'], ['name'], ['kind'], ['group']],
  'organizations.update': [['name']],
};

function valueAt(body: unknown, path: readonly string[]): unknown {
  let value = body;
  for (const part of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Throws invalid_argument for the first name field of `body` that holds a control character. */
export function refuseControlCharactersInNames(rpc: Rpc, body: unknown): void {
  for (const path of NAME_FIELDS[rpc] ?? []) {
    const value = valueAt(body, path);
    if (typeof value !== 'string') continue;
    const found = firstControlCharacter(value);
    if (found === undefined) continue;
    const field = path.join('.');
    const code = `U+${found.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    throw new ServiceError('invalid_argument', `${field}: must not hold control characters (found ${code})`, { field, rpc });
  }
}
