// Where the URL and the credential come from (flags beat variables beat the project), key parsing,
// and the small output helpers.
import { describe, expect, it } from 'vitest';
import { isLoopbackHost, parseApiKey } from '../../src/api/credentials.js';
import { openDirect as createClient } from '../../src/connect/open.js';
import { resolveConnection } from '../../src/connect/resolve.js';
import { renderTable } from '../../src/render/table.js';
import { useColor } from '../../src/cli/terminal.js';
import { UserError } from '../../src/errors.js';

describe('parseApiKey', () => {
  it.each([
    ['svc_dev_abc123', 'dev', 'abc123'],
    ['svc_pr-12_Zz9', 'pr-12', 'Zz9'],
    ['svc_team_a_prod_k3y', 'team_a_prod', 'k3y'],
    ['svc_svc_x', 'svc', 'x'],
    ['  svc_dev_abc  ', 'dev', 'abc'],
  ])('%j → environment %s', (token, environment, secret) => {
    expect(parseApiKey(token)).toEqual({ environment, secret });
  });

  it.each(['', 'dev_abc', 'svc_', 'svc_dev', 'svc__abc', 'svc_dev_', 'Bearer svc_dev_abc', 'svc_de v_abc', 'sk-live-123'])(
    'rejects %j without echoing it',
    (token) => {
      let error: unknown;
      try {
        parseApiKey(token);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(UserError);
      const text = `${(error as UserError).message} ${(error as UserError).hint ?? ''}`;
      expect(text).toMatch(/malformed/);
      // (Tokens as short as `svc_` are part of the format the message explains.)
      if (token.trim().length > 4) expect(text).not.toContain(token.trim());
    },
  );
});

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.3.4', true],
    ['localhost', true],
    ['LocalHost', true],
    ['[::1]', true],
    ['::1', true],
    ['128.0.0.1', false],
    ['127.0.0.1.example.com', false],
    ['10.0.0.1', false],
    ['example.com', false],
    ['[::2]', false],
    // IPv4-mapped: the URL parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1 (not loopback before the twenty-third session).
    ['[::ffff:7f00:1]', true],
    ['::ffff:127.0.0.1', true],
    ['0:0:0:0:0:ffff:7f01:0203', true],
    ['0:0:0:0:0:0:0:1', true],
    ['[::ffff:a00:1]', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:7f:1', false],
    ['fe80::1', false],
  ])('%s → %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe('resolveConnection', () => {
  const KEY = 'svc_dev_flagSecret1';
  const ENV_KEY = 'svc_staging_envSecret2';

  it('flags beat variables, variables beat the project', () => {
    const env = { AGENTFORM_URL: 'https://env.example.com', AGENTFORM_TOKEN: ENV_KEY };
    const fromConfig = { url: 'https://config.example.com', token: 'svc_cfg_cfgSecret3' };
    expect(resolveConnection({ url: 'https://flag.example.com', token: KEY }, env, fromConfig)).toEqual({
      baseUrl: 'https://flag.example.com',
      credential: { kind: 'key', token: KEY },
      environment: 'dev',
    });
    expect(resolveConnection({}, env, fromConfig)).toEqual({
      baseUrl: 'https://env.example.com',
      credential: { kind: 'key', token: ENV_KEY },
      environment: 'staging',
    });
    expect(resolveConnection({}, {}, fromConfig)).toMatchObject({ baseUrl: 'https://config.example.com', environment: 'cfg' });
  });

  it('a cookie with organization and environment when there is no key', () => {
    const env = { AGENTFORM_URL: 'https://x.example.com', AGENTFORM_COOKIE: 'session=s1', AGENTFORM_ORGANIZATION: 'acme', AGENTFORM_ENVIRONMENT: 'qa' };
    expect(resolveConnection({}, env)).toEqual({
      baseUrl: 'https://x.example.com',
      credential: { kind: 'cookie', cookie: 'session=s1', organization: 'acme', environment: 'qa' },
      environment: 'qa',
    });
  });

  it('no URL is an error naming both ways to give one, never a silent default', () => {
    expect(() => resolveConnection({ token: KEY }, {})).toThrow(UserError);
    expect(() => resolveConnection({ token: KEY }, {})).toThrow(/^no Control API URL: pass --url or set AGENTFORM_URL$/);
  });

  it('a malformed key is refused before any request', () => {
    expect(() => resolveConnection({ url: 'https://x.example.com', token: 'not-a-key' }, {})).toThrow(/malformed/);
  });
});

describe('createClient', () => {
  it('refuses plain http:// to a host that is not loopback, unless --insecure-http', async () => {
    const env = { AGENTFORM_TOKEN: 'svc_dev_abc123' };
    await expect(createClient({ url: 'http://control.example.com' }, env)).rejects.toThrow(/refusing plain http/);
    const connected = await createClient({ url: 'http://control.example.com', insecureHttp: true }, env);
    expect(connected.environment).toBe('dev');
    await connected.close();
  });

  it('without any credential says how to give one', async () => {
    await expect(createClient({ url: 'https://control.example.com' }, {})).rejects.toThrow(/no credential: pass --token or set AGENTFORM_TOKEN/);
  });
});

describe('output helpers', () => {
  it('renderTable aligns columns and does not pad the last one', () => {
    expect(
      renderTable(
        ['NAME', 'KIND', 'NOTE'],
        [
          ['a', 'agent', 'x'],
          ['longer-name', 'provider', ''],
        ],
      ),
    ).toBe(['NAME         KIND      NOTE', 'a            agent     x', 'longer-name  provider'].join('\n'));
  });

  it.each([
    [{ color: true }, true, {}, true],
    [{ color: false }, true, {}, false],
    [{ color: true }, false, {}, false],
    [{ color: true }, true, { NO_COLOR: '1' }, false],
    [{ color: true }, true, { NO_COLOR: '' }, true],
  ])('useColor(%j, tty %s, env %j) = %s', (globals, isTTY, env, expected) => {
    expect(useColor(globals, { isTTY } as NodeJS.WriteStream, env)).toBe(expected);
  });
});
