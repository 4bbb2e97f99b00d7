// The pure connection resolver: every row of both precedence tables, the key/environment guard and
// the cookie credential (src/connect/resolve.ts). No server, no process globals.
import { describe, expect, it } from 'vitest';
import {
  cookieCredential,
  environmentVariableSuffix,
  guardKey,
  missingCredentialError,
  resolveConnection,
  resolveTarget,
  targetCredential,
} from '../../src/connect/resolve.js';
import { UserError } from '../../src/errors.js';
import type { EnvironmentTarget } from '../../src/model/resources.js';

const TARGET: EnvironmentTarget = {
  name: 'staging-eu',
  slug: 'staging-eu',
  url: 'https://yaml.example.com',
  credential: { source: '${env:STAGING_TOKEN}', value: 'svc_staging-eu_yamlSecret' },
  prune: false,
};
const FULL_ENV = {
  AGENTFORM_URL_STAGING_EU: 'https://per-env.example.com',
  AGENTFORM_TOKEN_STAGING_EU: 'svc_staging-eu_perEnvSecret',
  AGENTFORM_URL: 'https://global.example.com',
  AGENTFORM_TOKEN: 'svc_staging-eu_globalSecret',
};
const FLAGS = { url: 'https://flag.example.com', token: 'svc_staging-eu_flagSecret' };

describe('resolveTarget: the project precedence table', () => {
  // Each row: what is set, and which source wins. Removing the winner exposes the next row.
  it.each([
    ['1. flags', FLAGS, FULL_ENV, TARGET, ['https://flag.example.com', '--url'], ['svc_staging-eu_flagSecret', '--token']],
    [
      '2. per-environment variables',
      {},
      FULL_ENV,
      TARGET,
      ['https://per-env.example.com', 'AGENTFORM_URL_STAGING_EU'],
      ['svc_staging-eu_perEnvSecret', 'AGENTFORM_TOKEN_STAGING_EU'],
    ],
    [
      '3. agentform.yaml',
      {},
      { AGENTFORM_URL: FULL_ENV.AGENTFORM_URL, AGENTFORM_TOKEN: FULL_ENV.AGENTFORM_TOKEN },
      TARGET,
      ['https://yaml.example.com', 'environments.staging-eu.url in agentform.yaml'],
      ['svc_staging-eu_yamlSecret', '${env:STAGING_TOKEN} (environments.staging-eu.token)'],
    ],
    [
      '4. global variables',
      {},
      { AGENTFORM_URL: FULL_ENV.AGENTFORM_URL, AGENTFORM_TOKEN: FULL_ENV.AGENTFORM_TOKEN },
      { ...TARGET, url: '', credential: { source: '${env:STAGING_TOKEN}' } },
      ['https://global.example.com', 'AGENTFORM_URL'],
      ['svc_staging-eu_globalSecret', 'AGENTFORM_TOKEN'],
    ],
  ])('%s', (_row, flags, env, target, [url, urlSource], [token, tokenSource]) => {
    expect(resolveTarget(target as EnvironmentTarget, flags, env)).toEqual({ url, urlSource, token, tokenSource });
  });

  it('an empty value does not count: the next row answers', () => {
    expect(resolveTarget(TARGET, { url: '' }, { AGENTFORM_URL_STAGING_EU: '' })).toMatchObject({ url: 'https://yaml.example.com' });
  });

  it('no token anywhere leaves the token out (the cookie or the local plane may supply one)', () => {
    expect(resolveTarget({ ...TARGET, credential: undefined } as unknown as EnvironmentTarget, {}, {})).toEqual({
      url: 'https://yaml.example.com',
      urlSource: 'environments.staging-eu.url in agentform.yaml',
    });
  });

  it('no URL anywhere is an error naming the ways to give one, never a silent local fall-back', () => {
    expect(() => resolveTarget({ ...TARGET, url: '' }, {}, {})).toThrow(/^environment staging-eu has no Control API URL$/);
    try {
      resolveTarget({ ...TARGET, url: '' }, {}, {});
    } catch (error) {
      expect((error as UserError).hint).toContain('AGENTFORM_URL_STAGING_EU');
    }
  });

  it.each([
    ['dev', 'DEV'],
    ['pr-12', 'PR_12'],
    ['team_a', 'TEAM_A'],
  ])('%s → AGENTFORM_URL_%s', (name, suffix) => {
    expect(environmentVariableSuffix(name)).toBe(suffix);
  });
});

describe('resolveConnection: the table without a project', () => {
  it.each([
    ['1. flags', FLAGS, FULL_ENV, { url: 'https://defaults.example.com', token: 'svc_d_x' }, 'https://flag.example.com', 'svc_staging-eu_flagSecret'],
    ['2. variables', {}, FULL_ENV, { url: 'https://defaults.example.com', token: 'svc_d_x' }, 'https://global.example.com', 'svc_staging-eu_globalSecret'],
    ['3. defaults', {}, {}, { url: 'https://defaults.example.com', token: 'svc_d_x' }, 'https://defaults.example.com', 'svc_d_x'],
  ])('%s', (_row, flags, env, defaults, baseUrl, token) => {
    expect(resolveConnection(flags, env, defaults)).toMatchObject({ baseUrl, credential: { kind: 'key', token } });
  });

  it('a cookie in the environment beats a token from the defaults, not a flag or variable', () => {
    const env = { AGENTFORM_URL: 'https://x.example.com', AGENTFORM_COOKIE: 'session=s1' };
    expect(resolveConnection({}, env, { token: 'svc_d_x' }).credential).toEqual({ kind: 'cookie', cookie: 'session=s1' });
    expect(resolveConnection({}, { ...env, AGENTFORM_TOKEN: 'svc_v_y' }, { token: 'svc_d_x' }).credential).toEqual({ kind: 'key', token: 'svc_v_y' });
  });

  it('no credential at all resolves the URL only (the opener refuses it, or the local plane gives a key)', () => {
    expect(resolveConnection({ url: 'local' }, {})).toEqual({ baseUrl: 'local' });
  });
});

describe('the key/environment guard', () => {
  it('passes a key for the environment', () => {
    expect(guardKey('svc_prod_abc', 'prod', '--token')).toEqual({ kind: 'key', token: 'svc_prod_abc' });
  });

  it.each([
    ['--token', 'the key from --token is for environment dev, not prod'],
    [undefined, 'the key from the local control plane is for environment dev, not prod'],
  ])('refuses a key for another environment (source %s), without showing it', (source, message) => {
    let error: unknown;
    try {
      guardKey('svc_dev_secretPart', 'prod', source);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).message).toBe(message);
    expect(`${(error as UserError).message} ${(error as UserError).hint}`).not.toContain('secretPart');
  });

  it('targetCredential guards the resolved key', () => {
    expect(() => targetCredential(TARGET, 'svc_other_x', 'AGENTFORM_TOKEN', {})).toThrow(/is for environment other, not staging-eu/);
  });
});

describe('the cookie credential', () => {
  it('is absent without AGENTFORM_COOKIE', () => {
    expect(cookieCredential({ AGENTFORM_ORGANIZATION: 'acme' }, 'dev')).toBeUndefined();
  });

  it.each([
    [{ AGENTFORM_COOKIE: 'c=1' }, undefined, { kind: 'cookie', cookie: 'c=1' }],
    [{ AGENTFORM_COOKIE: 'c=1', AGENTFORM_ORGANIZATION: 'acme' }, 'dev', { kind: 'cookie', cookie: 'c=1', organization: 'acme', environment: 'dev' }],
  ])('%j for %s', (env, environment, expected) => {
    expect(cookieCredential(env, environment)).toEqual(expected);
  });

  it('for a project environment: acts on that environment when no key is found', () => {
    expect(targetCredential(TARGET, undefined, undefined, { AGENTFORM_COOKIE: 'c=1', AGENTFORM_ORGANIZATION: 'acme' })).toEqual({
      kind: 'cookie',
      cookie: 'c=1',
      organization: 'acme',
      environment: 'staging-eu',
    });
  });

  it('a key beats the cookie', () => {
    expect(targetCredential(TARGET, 'svc_staging-eu_k', '--token', { AGENTFORM_COOKIE: 'c=1' })).toEqual({ kind: 'key', token: 'svc_staging-eu_k' });
  });

  it('refuses a cookie whose AGENTFORM_ENVIRONMENT names another environment', () => {
    expect(() => targetCredential(TARGET, undefined, undefined, { AGENTFORM_COOKIE: 'c=1', AGENTFORM_ENVIRONMENT: 'prod' })).toThrow(
      /^AGENTFORM_ENVIRONMENT is prod, not staging-eu$/,
    );
  });
});

describe('no credential for a project environment', () => {
  it('names the unset variable agentform.yaml reads (parsed by config/interpolate)', () => {
    const error = missingCredentialError({ ...TARGET, credential: { source: '${env:STAGING_TOKEN}' } }, {});
    expect(error.message).toBe('no credential for environment staging-eu: STAGING_TOKEN is not set');
    expect(error.hint).toContain('AGENTFORM_TOKEN_STAGING_EU');
  });

  it('without a token in agentform.yaml, says where to put one', () => {
    const { credential: _unused, ...bare } = TARGET;
    expect(() => targetCredential(bare, undefined, undefined, {})).toThrow(/^no credential for environment staging-eu$/);
  });
});
