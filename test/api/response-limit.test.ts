import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_RESPONSE_BYTES, formatBytes, maxResponseBytesFrom } from '../../src/api/response-limit.js';
import { UserError } from '../../src/errors.js';

describe('AGENTFORM_MAX_RESPONSE_BYTES', () => {
  it.each<[string | undefined, number]>([
    [undefined, DEFAULT_MAX_RESPONSE_BYTES],
    ['', DEFAULT_MAX_RESPONSE_BYTES],
    ['  ', DEFAULT_MAX_RESPONSE_BYTES],
    ['1024', 1024],
    [' 268435456 ', 268_435_456],
    ['536870848', 536_870_848],
  ])('%j → %i bytes', (value, bytes) => {
    expect(maxResponseBytesFrom({ AGENTFORM_MAX_RESPONSE_BYTES: value })).toBe(bytes);
  });

  it.each(['0', '1023', '-5', '64MB', '1e9', '1.5', '536870849', 'Infinity'])('%j is refused, naming the variable, the range and the value', (value) => {
    expect(() => maxResponseBytesFrom({ AGENTFORM_MAX_RESPONSE_BYTES: value })).toThrow(UserError);
    expect(() => maxResponseBytesFrom({ AGENTFORM_MAX_RESPONSE_BYTES: value })).toThrow(
      `AGENTFORM_MAX_RESPONSE_BYTES must be a whole number of bytes from 1024 to 536870848, not ${JSON.stringify(value)}`,
    );
  });
});

describe('formatBytes', () => {
  it.each<[number, string]>([
    [DEFAULT_MAX_RESPONSE_BYTES, '64 MiB'],
    [1_048_576, '1 MiB'],
    [1_500_000, '1.4 MiB'],
    [1536, '1.5 KiB'],
    [1000, '1000 bytes'],
  ])('%i → %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
