import { describe, expect, it, vi } from 'vitest';

// Wrap (not replace) timingSafeEqual so the tests can see that verification goes through it.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const { timingSafeEqual } = await import('node:crypto');
const { generateSigningSecret, signPayload, verifySignature } = await import('../../../src/server/hooks/signing.js');

const T = 1_700_000_000;
const BODY = '{"event":"session.created","id":"evt_1"}';
const SECRET = 'whsec_test_secret';

describe('signPayload known answers', () => {
  // Expected digests computed independently with:
  //   printf '%s' "<t>.<body>" | openssl dgst -sha256 -hmac "<secret>" -hex
  it.each([
    { body: BODY, secret: SECRET, hex: 'dc984445ab13f374fd76ba0e872ea1c5e850ea92e28afb093f91862137e97e63' },
    { body: '', secret: 'k', hex: '5c2999a43333a6877f49c8003f235c4f6de40f85b1b7414b70bd470a8db53d97' },
    { body: 'héllo', secret: 'k', hex: '0dd0da892ec25d47eb22dba05cba7e795002150e253f880656a206c6153d68a2' },
  ])('signs $body with $secret', ({ body, secret, hex }) => {
    expect(signPayload(body, secret, T)).toBe(`t=${T},v1=${hex}`);
    expect(verifySignature(body, `t=${T},v1=${hex}`, secret, { nowSeconds: T })).toBe(true);
  });

  it('floors a fractional clock and defaults to now', () => {
    expect(signPayload(BODY, SECRET, T + 0.9)).toBe(signPayload(BODY, SECRET, T));
    const header = signPayload(BODY, SECRET);
    const t = Number(/^t=(\d+),/.exec(header)![1]);
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(5);
    expect(verifySignature(BODY, header, SECRET)).toBe(true);
  });

  it('refuses an empty secret', () => {
    expect(() => signPayload(BODY, '', T)).toThrow(/signing secret is required/);
  });
});

describe('verifySignature rejects tampering', () => {
  const header = signPayload(BODY, SECRET, T);
  const hex = header.split('v1=')[1]!;
  const flipLast = hex.slice(0, -1) + (hex.endsWith('0') ? '1' : '0');

  it.each([
    { name: 'changed body', body: BODY.replace('evt_1', 'evt_2'), header, secret: SECRET },
    { name: 'extra whitespace in body', body: `${BODY} `, header, secret: SECRET },
    { name: 'wrong secret', body: BODY, header, secret: `${SECRET}x` },
    { name: 'empty secret', body: BODY, header, secret: '' },
    { name: 'changed timestamp', body: BODY, header: header.replace(`t=${T}`, `t=${T + 1}`), secret: SECRET },
    { name: 'last hex digit flipped', body: BODY, header: `t=${T},v1=${flipLast}`, secret: SECRET },
    { name: 'truncated signature', body: BODY, header: `t=${T},v1=${hex.slice(0, 63)}`, secret: SECRET },
    { name: 'non-hex signature', body: BODY, header: `t=${T},v1=${'z'.repeat(64)}`, secret: SECRET },
    { name: 'missing v1', body: BODY, header: `t=${T}`, secret: SECRET },
    { name: 'missing t', body: BODY, header: `v1=${hex}`, secret: SECRET },
    { name: 'two timestamps', body: BODY, header: `t=${T},t=${T},v1=${hex}`, secret: SECRET },
    { name: 'negative timestamp', body: BODY, header: `t=-1,v1=${hex}`, secret: SECRET },
    { name: 'garbage', body: BODY, header: 'not a signature', secret: SECRET },
    { name: 'empty header', body: BODY, header: '', secret: SECRET },
  ])('$name → false', ({ body, header: h, secret }) => {
    expect(verifySignature(body, h, secret, { nowSeconds: T })).toBe(false);
  });

  it('accepts uppercase hex, spaces after commas, unknown schemes and any matching v1', () => {
    expect(verifySignature(BODY, `t=${T},v1=${hex.toUpperCase()}`, SECRET, { nowSeconds: T })).toBe(true);
    expect(verifySignature(BODY, `t=${T}, v1=${hex}`, SECRET, { nowSeconds: T })).toBe(true);
    expect(verifySignature(BODY, `t=${T},v0=abc,v1=${flipLast},v1=${hex}`, SECRET, { nowSeconds: T })).toBe(true);
  });
});

describe('verifySignature tolerance', () => {
  const header = signPayload(BODY, SECRET, T);

  it.each([
    { offset: 0, tolerance: undefined, ok: true },
    { offset: 300, tolerance: undefined, ok: true },
    { offset: 301, tolerance: undefined, ok: false },
    { offset: -300, tolerance: undefined, ok: true },
    { offset: -301, tolerance: undefined, ok: false },
    { offset: 10, tolerance: 10, ok: true },
    { offset: 11, tolerance: 10, ok: false },
    { offset: 1, tolerance: 0, ok: false },
    { offset: 86_400, tolerance: 100_000, ok: true },
  ])('now = t $offset s, tolerance $tolerance → $ok', ({ offset, tolerance, ok }) => {
    const opts = tolerance === undefined ? { nowSeconds: T + offset } : { nowSeconds: T + offset, toleranceSeconds: tolerance };
    expect(verifySignature(BODY, header, SECRET, opts)).toBe(ok);
  });
});

describe('verifySignature constant-time path', () => {
  it('compares digests with crypto.timingSafeEqual, also when they differ', () => {
    const spy = vi.mocked(timingSafeEqual);
    const header = signPayload(BODY, SECRET, T);
    const hex = header.split('v1=')[1]!;
    const wrong = hex.slice(0, -1) + (hex.endsWith('0') ? '1' : '0');

    spy.mockClear();
    expect(verifySignature(BODY, header, SECRET, { nowSeconds: T })).toBe(true);
    expect(spy).toHaveBeenCalledTimes(1);

    spy.mockClear();
    expect(verifySignature(BODY, `t=${T},v1=${wrong}`, SECRET, { nowSeconds: T })).toBe(false);
    expect(spy).toHaveBeenCalledTimes(1);
    const [a, b] = spy.mock.calls[0]!;
    expect(a.byteLength).toBe(32);
    expect(b.byteLength).toBe(32);

    // Every candidate is compared, not just up to the first match.
    spy.mockClear();
    expect(verifySignature(BODY, `t=${T},v1=${hex},v1=${wrong}`, SECRET, { nowSeconds: T })).toBe(true);
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it('never throws on malformed lengths (timingSafeEqual would)', () => {
    for (const candidate of ['', 'a', 'ab'.repeat(33), 'g'.repeat(64)]) {
      expect(() => verifySignature(BODY, `t=${T},v1=${candidate}`, SECRET, { nowSeconds: T })).not.toThrow();
    }
  });
});

describe('generateSigningSecret', () => {
  it('returns distinct prefixed secrets with 256 bits of randomness', () => {
    const secrets = new Set(Array.from({ length: 50 }, () => generateSigningSecret()));
    expect(secrets.size).toBe(50);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64url')).toHaveLength(32);
    }
    const secret = generateSigningSecret();
    expect(verifySignature(BODY, signPayload(BODY, secret, T), secret, { nowSeconds: T })).toBe(true);
  });
});

describe('the worked example of docs/local-control-plane.md', async () => {
  const { readFileSync } = await import('node:fs');
  const { createHmac } = await import('node:crypto');
  const doc = readFileSync(new URL('../../../docs/local-control-plane.md', import.meta.url), 'utf8');
  const secret = /"secret": "(whsec_[^"]+)"/.exec(doc)![1]!;
  const body = '{"deliveryId":"hkd_1","event":{"type":"session.completed"}}';

  it('states the signature signPayload makes', () => {
    const header = signPayload(body, secret, 1_767_225_600);
    expect(doc).toContain(`t=1767225600,v1=<hex>`);
    expect(doc).toContain(`\`${header.slice(header.indexOf('v1=') + 3)}\``);
  });

  it('its receiver code accepts a fresh signature and refuses a tampered or stale one', () => {
    const code = /```js\n([\s\S]*?)```/.exec(doc)![1]!.replace(/^import .*$/m, '');
    const verify = new Function('createHmac', 'timingSafeEqual', `${code}; return verify;`)(createHmac, timingSafeEqual) as (
      b: string,
      h: string,
      s: string,
    ) => boolean;
    const now = Math.floor(Date.now() / 1000);
    expect(verify(body, signPayload(body, secret, now), secret)).toBe(true);
    expect(verify(body.replace('hkd_1', 'hkd_2'), signPayload(body, secret, now), secret)).toBe(false);
    expect(verify(body, signPayload(body, secret, now - 3_600), secret)).toBe(false);
    expect(verify(body, signPayload(body, 'whsec_another-secret-000', now), secret)).toBe(false);
  });
});
