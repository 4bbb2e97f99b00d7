import { describe, expect, it } from 'vitest';
import { bypasses, proxyFor, type ProxyRoute } from '../../src/api/proxy.js';
import { UserError } from '../../src/errors.js';
import type { Variables } from '../../src/util/variables.js';

const PROXY = 'http://proxy.corp.example:3128';

describe('proxyFor: which variable serves which URL', () => {
  it.each<[string, Variables, string | undefined]>([
    ['https://api.example.com', { HTTPS_PROXY: PROXY }, 'HTTPS_PROXY'],
    ['https://api.example.com', { https_proxy: PROXY }, 'https_proxy'],
    ['https://api.example.com', { HTTPS_PROXY: PROXY, https_proxy: 'http://other:1' }, 'HTTPS_PROXY'],
    ['https://api.example.com', { HTTPS_PROXY: '  ', https_proxy: PROXY }, 'https_proxy'],
    ['https://api.example.com', { HTTP_PROXY: PROXY }, undefined],
    ['http://api.example.com', { HTTP_PROXY: PROXY }, 'HTTP_PROXY'],
    ['http://api.example.com', { http_proxy: PROXY }, 'http_proxy'],
    ['http://api.example.com', { HTTPS_PROXY: PROXY }, undefined],
    ['https://api.example.com', {}, undefined],
  ])('%s with %j: %s', (url, env, source) => {
    expect(proxyFor(new URL(url), env)?.source).toBe(source);
  });

  it.each([
    'http://127.0.0.1:4466',
    'http://127.1.2.3',
    'http://localhost:8080',
    'https://plane.localhost',
    'http://[::1]:4466',
    'http://[::ffff:127.0.0.1]:4466',
  ])('never for this machine: %s', (url) => {
    expect(proxyFor(new URL(url), { HTTPS_PROXY: PROXY, HTTP_PROXY: PROXY })).toBeUndefined();
  });

  it('the route: host, port, label without credentials, Basic credentials decoded from the URL', () => {
    const route = proxyFor(new URL('https://api.example.com'), { HTTPS_PROXY: 'http://ci%40corp:p%3Ass w@proxy.corp.example:3128/' })!;
    expect(route).toMatchObject({ host: 'proxy.corp.example', port: 3128, label: 'http://proxy.corp.example:3128', source: 'HTTPS_PROXY' });
    expect(Buffer.from(route.authorization!.replace(/^Basic /, ''), 'base64').toString()).toBe('ci@corp:p:ss w');
  });

  it.each<[string, Partial<ProxyRoute>]>([
    ['proxy.corp.example:3128', { host: 'proxy.corp.example', port: 3128, label: 'http://proxy.corp.example:3128' }],
    ['http://proxy.corp.example', { host: 'proxy.corp.example', port: 80 }],
    ['http://[2001:db8::1]:8080', { host: '2001:db8::1', port: 8080, label: 'http://[2001:db8::1]:8080' }],
    ['http://10.0.0.1:3128', { host: '10.0.0.1', port: 3128 }],
  ])('proxy URL %s', (value, expected) => {
    const route = proxyFor(new URL('https://api.example.com'), { HTTPS_PROXY: value });
    expect(route).toMatchObject(expected);
    expect(route).not.toHaveProperty('authorization');
  });

  it.each([
    ['https://proxy.corp.example:3128', /HTTPS_PROXY names a https:\/\/ proxy; agentform talks to proxies over http:\/\/ only/],
    ['socks5://proxy.corp.example:1080', /names a socks5:\/\/ proxy/],
    ['http://user:secret@[not a host', /HTTPS_PROXY is not a proxy URL/],
    // Unencoded / ? # in a password end the authority early: user and password would pass for host and port.
    ['http://ci-bot:2024/secret@proxy.corp.example:3128', /HTTPS_PROXY holds something after the proxy's host and port/],
    ['ci:0123?secret@proxy.corp.example:8080', /holds something after the proxy's host and port/],
    ['http://ci:12#secret@proxy.corp.example:8080', /holds something after the proxy's host and port/],
  ])('refused, without echoing the value: %s', (value, message) => {
    let thrown: unknown;
    try {
      proxyFor(new URL('https://api.example.com'), { HTTPS_PROXY: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UserError);
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message).not.toContain('secret');
  });
});

describe('NO_PROXY', () => {
  it.each<[string, string, number, boolean]>([
    ['*', 'api.example.com', 443, true],
    ['example.com', 'example.com', 443, true],
    ['example.com', 'api.example.com', 443, true],
    ['example.com', 'notexample.com', 443, false],
    ['.example.com', 'api.example.com', 443, true],
    ['.example.com', 'example.com', 443, false],
    ['*.example.com', 'api.example.com', 443, true],
    ['*.example.com', 'example.com', 443, false],
    ['EXAMPLE.com', 'api.example.com', 443, true],
    ['example.com:8443', 'api.example.com', 8443, true],
    ['example.com:8443', 'api.example.com', 443, false],
    ['other.org, example.com', 'api.example.com', 443, true],
    ['other.org example.com', 'api.example.com', 443, true],
    ['other.org,,', 'api.example.com', 443, false],
    ['', 'api.example.com', 443, false],
    ['10.0.0.0/8', '10.1.2.3', 443, true],
    ['10.0.0.0/8', '11.1.2.3', 443, false],
    ['10.1.2.3', '10.1.2.3', 443, true],
    ['10.1.2.3:8443', '10.1.2.3', 443, false],
    ['10.0.0.0/8', 'api.example.com', 443, false],
    ['example.com', '10.1.2.3', 443, false],
    ['2001:db8::/32', '2001:db8::1', 443, true],
    ['[2001:db8::1]:443', '2001:db8::1', 443, true],
    ['2001:db8::/32', '2001:db9::1', 443, false],
    ['10.0.0.0/99', '10.1.2.3', 443, false],
  ])('%j for %s:%i: %s', (noProxy, host, port, expected) => {
    expect(bypasses(noProxy, host, port)).toBe(expected);
  });

  it('NO_PROXY (or no_proxy) sends the named hosts direct', () => {
    const url = new URL('https://api.internal.example');
    expect(proxyFor(url, { HTTPS_PROXY: PROXY, NO_PROXY: '.internal.example' })).toBeUndefined();
    expect(proxyFor(url, { HTTPS_PROXY: PROXY, no_proxy: 'internal.example' })).toBeUndefined();
    expect(proxyFor(url, { HTTPS_PROXY: PROXY, NO_PROXY: 'other.example' })?.source).toBe('HTTPS_PROXY');
    // An empty NO_PROXY does not hide no_proxy (the first one set and not empty counts, as in Go).
    expect(proxyFor(url, { HTTPS_PROXY: PROXY, NO_PROXY: '', no_proxy: 'internal.example' })).toBeUndefined();
  });
});
