import { describe, expect, it } from 'vitest';
import { HttpRefusal, requestHeadOf } from '../../../src/server/http1/request-head.js';

/** A head's text; an HTTP/1.1 request line gets its Host field unless the lines name one. */
const head = (...lines: string[]): string => {
  const withHost = lines[0]!.endsWith('HTTP/1.1') && !lines.some((line) => /^host:/i.test(line)) ? [lines[0]!, 'Host: x', ...lines.slice(1)] : lines;
  return withHost.join('\r\n');
};

describe('requestHeadOf', () => {
  it('reads the request line, the fields (lower-case names, OWS trimmed) and the framing', () => {
    const parsed = requestHeadOf(head('POST /v1/agents/upsert HTTP/1.1', 'Host: x', 'Content-Type:  application/json \t', 'Content-Length: 12'));
    expect(parsed).toMatchObject({
      method: 'POST',
      target: '/v1/agents/upsert',
      minor: 1,
      keepAlive: true,
      expectsContinue: false,
      framing: { kind: 'length', length: 12 },
    });
    expect(parsed.headers['content-type']).toBe('application/json');
    expect(Object.getPrototypeOf(parsed.headers)).toBeNull();
  });

  it.each([
    ['HTTP/1.1, no Connection field', ['POST / HTTP/1.1'], true],
    ['HTTP/1.1, Connection: close', ['POST / HTTP/1.1', 'Connection: Close'], false],
    ['HTTP/1.1, close among other options', ['POST / HTTP/1.1', 'Connection: te, close'], false],
    ['HTTP/1.0, no Connection field', ['POST / HTTP/1.0'], false],
    ['HTTP/1.0, Connection: keep-alive', ['POST / HTTP/1.0', 'Connection: Keep-Alive'], true],
  ])('keeps the connection open or not: %s', (_name, lines, keepAlive) => {
    expect(requestHeadOf(head(...lines)).keepAlive).toBe(keepAlive);
  });

  it.each([
    ['no length, no coding: no body', ['POST / HTTP/1.1'], { kind: 'length', length: 0 }],
    ['Content-Length', ['POST / HTTP/1.1', 'Content-Length: 5'], { kind: 'length', length: 5 }],
    ['the same Content-Length twice', ['POST / HTTP/1.1', 'Content-Length: 5', 'Content-Length: 5'], { kind: 'length', length: 5 }],
    ['chunked (any case)', ['POST / HTTP/1.1', 'Transfer-Encoding: Chunked'], { kind: 'chunked' }],
  ])('frames the body: %s', (_name, lines, framing) => {
    expect(requestHeadOf(head(...lines)).framing).toEqual(framing);
  });

  it('joins repeated fields as node does: the first of Authorization, cookies with "; ", others with ", "', () => {
    const { headers } = requestHeadOf(
      head('POST / HTTP/1.1', 'Authorization: Bearer a', 'Authorization: Bearer b', 'Cookie: a=1', 'Cookie: b=2', 'Accept: x', 'Accept: y'),
    );
    expect(headers).toMatchObject({ authorization: 'Bearer a', cookie: 'a=1; b=2', accept: 'x, y' });
  });

  it('requires one Host field in HTTP/1.1, none in HTTP/1.0', () => {
    expect(() => requestHeadOf('POST / HTTP/1.1\r\nContent-Length: 0')).toThrow(/without a Host/);
    expect(requestHeadOf('POST / HTTP/1.0').headers.host).toBeUndefined();
  });

  it('skips empty lines before the request line', () => {
    expect(requestHeadOf(head('', '', 'POST /after HTTP/1.1', 'Host: x')).target).toBe('/after');
  });

  it("ignores an HTTP/1.0 client's Expect", () => {
    expect(requestHeadOf(head('POST / HTTP/1.0', 'Expect: 200-ok')).expectsContinue).toBe(false);
  });

  it('notes Expect: 100-continue (HTTP/1.1 only)', () => {
    expect(requestHeadOf(head('POST / HTTP/1.1', 'Expect: 100-Continue', 'Content-Length: 3')).expectsContinue).toBe(true);
    expect(requestHeadOf(head('POST / HTTP/1.0', 'Expect: 100-continue', 'Content-Length: 3')).expectsContinue).toBe(false);
  });

  it.each([
    ['a request line without a version', ['POST /'], 400],
    ['a method that is not a token', ['PO(ST / HTTP/1.1'], 400],
    ['two spaces in the request line', ['POST  / HTTP/1.1'], 400],
    ['a control character in the target', ['POST /a\x01b HTTP/1.1'], 400],
    ['a lower-case protocol name', ['POST / http/1.1'], 400],
    ['HTTP/2.0', ['POST / HTTP/2.0'], 505],
    ['HTTP/1.2', ['POST / HTTP/1.2'], 505],
    ['a field without a name', ['POST / HTTP/1.1', ': x'], 400],
    ['a field name with a space', ['POST / HTTP/1.1', 'Content Length: 3'], 400],
    ['a folded field (obs-fold)', ['POST / HTTP/1.1', 'X-A: 1', ' 2'], 400],
    ['a control character in a value', ['POST / HTTP/1.1', 'X-A: a\x00b'], 400],
    ['a bare CR in a value', ['POST / HTTP/1.1', 'X-A: a\rb'], 400],
    ['two different lengths', ['POST / HTTP/1.1', 'Content-Length: 3', 'Content-Length: 4'], 400],
    ['a length that is not a number', ['POST / HTTP/1.1', 'Content-Length: 3x'], 400],
    ['a negative length', ['POST / HTTP/1.1', 'Content-Length: -1'], 400],
    ['a length and a coding (smuggling)', ['POST / HTTP/1.1', 'Content-Length: 3', 'Transfer-Encoding: chunked'], 400],
    ['a coding in HTTP/1.0', ['POST / HTTP/1.0', 'Transfer-Encoding: chunked'], 400],
    ['gzip', ['POST / HTTP/1.1', 'Transfer-Encoding: gzip'], 501],
    ['chunked not last', ['POST / HTTP/1.1', 'Transfer-Encoding: chunked, gzip'], 501],
    ['chunked twice', ['POST / HTTP/1.1', 'Transfer-Encoding: chunked', 'Transfer-Encoding: chunked'], 501],
    ['an expectation other than 100-continue', ['POST / HTTP/1.1', 'Expect: 200-ok'], 417],
    ['two Host fields', ['POST / HTTP/1.1', 'Host: a', 'host: b'], 400],
    ['two Host fields in HTTP/1.0', ['POST / HTTP/1.0', 'Host: a', 'Host: b'], 400],
  ])('refuses %s', (_name, lines, status) => {
    let caught: unknown;
    try {
      requestHeadOf(head(...lines));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(HttpRefusal);
    expect((caught as HttpRefusal).status).toBe(status);
  });
});
