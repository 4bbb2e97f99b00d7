// The off switch of every speed-up (src/util/optimizations.ts): all at once, or by name.
import { describe, expect, it } from 'vitest';
import { OPTIMIZATIONS, optimizationsOff } from '../../src/util/optimizations.js';

describe('AGENTFORM_OPTIMIZATIONS', () => {
  it.each([
    [undefined, []],
    ['', []],
    ['on', []],
    ['off', [...OPTIMIZATIONS]],
    [' OFF ', [...OPTIMIZATIONS]],
    ['0', [...OPTIMIZATIONS]],
    ['false', [...OPTIMIZATIONS]],
    ['-parse-cache', ['parse-cache']],
    ['-parse-cache, -client-http', ['parse-cache', 'client-http']],
    ['parse-cache', []],
    ['-startup,-unknown', ['startup']],
  ] as Array<[string | undefined, string[]]>)('%j turns off %j', (setting, off) => {
    const env = setting === undefined ? {} : { AGENTFORM_OPTIMIZATIONS: setting };
    expect(OPTIMIZATIONS.filter((name) => optimizationsOff(env, name))).toEqual(off);
  });
});
