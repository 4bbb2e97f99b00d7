import { describe, expect, it } from 'vitest';
import { DEFAULT_REQUEST_TIMEOUT_MS, requestTimeoutMsFrom } from '../../src/api/request-timeout.js';
import { UserError } from '../../src/errors.js';

describe('AGENTFORM_TIMEOUT', () => {
  it.each<[string | undefined, number]>([
    [undefined, DEFAULT_REQUEST_TIMEOUT_MS],
    ['', DEFAULT_REQUEST_TIMEOUT_MS],
    ['  ', DEFAULT_REQUEST_TIMEOUT_MS],
    ['120', 120_000],
    [' 5 ', 5_000],
    ['0.5', 500],
    ['0.001', 1],
    ['.5', 500],
    ['1.', 1_000],
    ['2147483', 2_147_483_000],
  ])('%j → %i ms', (value, ms) => {
    expect(requestTimeoutMsFrom({ AGENTFORM_TIMEOUT: value })).toBe(ms);
  });

  it.each(['0', '0.0001', '-5', 'abc', '1e3', '30s', 'Infinity', '2147484', '.', '1.2.3'])(
    '%j is refused, naming the variable, the range and the value',
    (value) => {
      expect(() => requestTimeoutMsFrom({ AGENTFORM_TIMEOUT: value })).toThrow(UserError);
      expect(() => requestTimeoutMsFrom({ AGENTFORM_TIMEOUT: value })).toThrow(
        `AGENTFORM_TIMEOUT must be a number of seconds from 0.001 to 2147483, not ${JSON.stringify(value)}`,
      );
    },
  );
});
