// The request path of src/server/http.ts (its operations are tested through the server elsewhere).
import { describe, expect, it } from 'vitest';
import { pathOfTarget } from '../../src/server/http.js';
import { ServiceError } from '../../src/server/service-error.js';

describe('pathOfTarget', () => {
  it.each([
    '/v1/agents/upsert',
    '/v1/connections/grants/import',
    '/dev/cookie',
    '/v1//agents/list',
    '/v1/../v1/agents/list',
    '/v1/./agents/list',
    '/v1/agents%2Flist',
    '/v1/agents/list?x=1',
    '/v1/agents/list#f',
    '//v1/agents/list',
    '/v1/agents/list/',
    '/',
  ])('%s resolves as URL resolves it', (target) => {
    expect(pathOfTarget(target)).toBe(new URL(target, 'http://local').pathname);
  });
});

it('refuses a target that is not a path with a 400, not an internal error', () => {
  expect(() => pathOfTarget('http://[')).toThrow(ServiceError);
  expect(() => pathOfTarget('http://[')).toThrow(/is not a path/);
});
