// What the client relies on in each operation's answer: a list or an object, and the types of the
// fields that identify what it holds. An answer of another shape is the server's fault, reported
// naming the operation, rather than a TypeError deep in the engine that would read as a bug in
// agentform. Deliberately shallow, and no field is required: the description does not say which
// response fields may be absent (src/model/api.ts), so a field is checked only when present.
import { USAGE_FIELDS } from '../model/api.js';
import type { Rpc } from './operations.js';

type Primitive = 'string' | 'number' | 'boolean' | 'object';
/** A value's shape: a primitive type, a list of a shape, or an object whose fields, when present, have their shapes; `any` is unchecked. */
export type Shape = Primitive | 'any' | { list: Shape } | { fields: Readonly<Record<string, Shape>> };

const fields = (known: Record<string, Shape>): Shape => ({ fields: known });
const list = (item: Shape): Shape => ({ list: item });

const IDENTITY = fields({ scope: 'string', id: 'string' });
const API_KEY = fields({ id: 'string', name: 'string', scopes: list('string') });
const AGENT_VERSION = { agentId: 'string', version: 'number', definition: 'object' } as const;
const AGENT_WITH_SLUG = fields({ ...AGENT_VERSION, slug: 'string' });
const ENVIRONMENT = fields({ id: 'string', slug: 'string' });
const ORGANIZATION = fields({ id: 'string', slug: 'string', name: 'string' });
const CONNECTION = fields({ id: 'string', name: 'string', auth: fields({ type: 'string' }) });
const GRANT = fields({ id: 'string', connectionId: 'string', identity: IDENTITY });
const PROVIDER = fields({ id: 'string', name: 'string', type: 'string' });
const SECRET = fields({ id: 'string', name: 'string' });
const HOOK_DELIVERY = fields({
  id: 'string',
  sessionId: 'string',
  connectionId: 'string',
  eventSeq: 'number',
  eventType: 'string',
  status: 'string',
  attempts: 'number',
});
const USAGE_TOTALS = fields(Object.fromEntries(USAGE_FIELDS.map((name) => [name, 'number' as const])));

export const ANSWER_SHAPES: { readonly [R in Rpc]: Shape } = {
  'apiKeys.create': fields({ key: API_KEY, token: 'string' }),
  'apiKeys.revoke': API_KEY,
  'apiKeys.list': list(API_KEY),
  'agents.upsert': fields(AGENT_VERSION),
  'agents.list': list(AGENT_WITH_SLUG),
  'agents.get': AGENT_WITH_SLUG,
  'agents.delete': 'any',
  'environments.get': ENVIRONMENT,
  'environments.list': list(ENVIRONMENT),
  'environments.create': ENVIRONMENT,
  'environments.update': ENVIRONMENT,
  'environments.archive': ENVIRONMENT,
  'organizations.get': ORGANIZATION,
  'organizations.update': ORGANIZATION,
  'sandboxes.list': list(fields({ id: 'string', state: 'string' })),
  'connections.create': CONNECTION,
  'connections.list': list(CONNECTION),
  'connections.update': CONNECTION,
  'connections.delete': 'any',
  'connections.test': fields({ tools: list(fields({ name: 'string' })) }),
  'connections.grants.import': fields({ results: list(fields({ identity: IDENTITY, outcome: 'string' })) }),
  'connections.grants.list': list(GRANT),
  'connections.grants.delete': 'any',
  'hooks.redeliver': HOOK_DELIVERY,
  'hooks.redeliverAll': fields({ requeued: 'number', more: 'boolean' }),
  'sessions.events': list(fields({ seq: 'number', sessionId: 'string', at: 'string', type: 'string' })),
  'sessions.pending': list(fields({ toolCallId: 'string', name: 'string' })),
  'providers.create': PROVIDER,
  'providers.list': list(PROVIDER),
  'providers.update': PROVIDER,
  'providers.delete': 'any',
  'providers.models': list(fields({ id: 'string' })),
  'secrets.create': SECRET,
  'secrets.list': list(SECRET),
  'secrets.update': SECRET,
  'secrets.delete': 'any',
  'usage.keys': list(fields({ keyId: 'string', name: 'string', totals: USAGE_TOTALS })),
};

/** How the first mismatch of `value` against `shape` reads (`[2].slug is not a string`), or undefined when it matches. */
export function shapeMismatch(value: unknown, shape: Shape, path = ''): string | undefined {
  if (shape === 'any') return undefined;
  if (typeof shape === 'string') return kindOf(value) === shape ? undefined : `${describe(path)} is ${article(kindOf(value))}, not ${article(shape)}`;
  if ('list' in shape) {
    if (!Array.isArray(value)) return `${describe(path)} is ${article(kindOf(value))}, not a list`;
    for (let index = 0; index < value.length; index++) {
      const mismatch = shapeMismatch(value[index], shape.list, `${path}[${index}]`);
      if (mismatch) return mismatch;
    }
    return undefined;
  }
  if (kindOf(value) !== 'object') return `${describe(path)} is ${article(kindOf(value))}, not an object`;
  const record = value as Record<string, unknown>;
  for (const [name, field] of Object.entries(shape.fields)) {
    const at = path === '' ? name : `${path}.${name}`;
    if (!Object.hasOwn(record, name)) continue;
    const mismatch = shapeMismatch(record[name], field, at);
    if (mismatch) return mismatch;
  }
  return undefined;
}

/** A JSON value's kind, as the messages name it. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  return typeof value;
}

function describe(path: string): string {
  return path === '' ? 'the answer' : path;
}

function article(kind: string): string {
  return kind === 'null' ? 'null' : /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}
