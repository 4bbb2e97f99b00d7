// Every error has a stable code and a fault; the catalogue is documented in docs/errors.md.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PlanError } from '../src/engine/errors.js';
import { AbortedError, ApiError, ERROR_CODES, ProblemsError, UserError, describeError } from '../src/errors.js';

describe('describeError', () => {
  it.each([
    ['a plain user error', new UserError('bad flag', 'try --x'), { code: 'user_error', fault: 'user', message: 'bad flag', hint: 'try --x', exitCode: 1 }],
    ['a coded user error', new UserError('no url').withCode('no_url'), { code: 'no_url', fault: 'user', exitCode: 1 }],
    ['a declined prompt', new AbortedError('Apply cancelled.'), { code: 'cancelled', fault: 'user', exitCode: 1 }],
    ['an interrupt', new AbortedError('Apply interrupted', 130), { code: 'interrupted', exitCode: 130 }],
    ['a refused plan', new PlanError('mass delete'), { code: 'plan_refused', fault: 'user' }],
    ['problems', new ProblemsError('2 errors', [{ message: 'x' }]), { code: 'invalid_configuration', fault: 'user', problems: [{ message: 'x' }] }],
    [
      'an API refusal',
      new ApiError('agents.get', 404, 'not_found', 'no agent'),
      { code: 'api_error', fault: 'user', apiCode: 'not_found', status: 404, rpc: 'agents.get' },
    ],
    ['no answer', new ApiError('agents.get', 0, 'connection_refused', 'refused'), { code: 'api_error', fault: 'service', apiCode: 'connection_refused' }],
    ['a server error', new ApiError('agents.get', 503, 'unavailable', 'down'), { code: 'api_error', fault: 'service' }],
    [
      'a malformed success answer',
      new ApiError('agents.list', 200, 'invalid_response', 'malformed'),
      { code: 'api_error', fault: 'service', apiCode: 'invalid_response', status: 200 },
    ],
    ['a bug', new TypeError('x is undefined'), { code: 'internal', fault: 'tool', message: 'x is undefined', exitCode: 1 }],
  ])('%s', (_name, error, expected) => {
    expect(describeError(error)).toMatchObject(expected);
  });
});

describe('docs/errors.md', () => {
  const doc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
  it.each(Object.keys(ERROR_CODES))('documents %s', (code) => {
    expect(doc).toContain(`\`${code}\``);
  });
});
