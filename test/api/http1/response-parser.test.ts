import { describe, expect, it } from 'vitest';
import { listsToken, MAX_HEAD_BYTES, ResponseParser, type ResponseHead } from '../../../src/api/http1/response-parser.js';

interface Parsed {
  heads: ResponseHead[];
  body: string;
  ends: boolean[];
}

/** Feeds `pieces` to a fresh parser (reset before each response, as the pool does before each request). */
function parse(pieces: Array<string | Buffer>, options: { finish?: boolean; responses?: number } = {}): Parsed {
  const parsed: Parsed = { heads: [], body: '', ends: [] };
  const parser = new ResponseParser({
    head: (head) => parsed.heads.push(head),
    body: (chunk) => (parsed.body += chunk.toString('latin1')),
    end: (reusable) => {
      parsed.ends.push(reusable);
      if (parsed.ends.length < (options.responses ?? 1)) parser.reset();
    },
  });
  parser.reset();
  for (const piece of pieces) parser.feed(typeof piece === 'string' ? Buffer.from(piece, 'latin1') : piece);
  if (options.finish) parser.finish();
  return parsed;
}

/** Every way of cutting `text` in two, and byte by byte: the result must not depend on where reads end. */
function splits(text: string): Array<string[]> {
  const ways: Array<string[]> = [[text], [...text]];
  for (let at = 1; at < text.length; at++) ways.push([text.slice(0, at), text.slice(at)]);
  return ways;
}

const CASES: Array<{ name: string; wire: string; status: number; body: string; reusable: boolean; finish?: boolean; headers?: Record<string, unknown> }> = [
  {
    name: 'Content-Length',
    wire: 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}',
    status: 200,
    body: '{"a":1}',
    reusable: true,
    headers: { 'content-type': 'application/json' },
  },
  { name: 'an empty body by length', wire: 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n', status: 200, body: '', reusable: true },
  { name: 'no reason phrase', wire: 'HTTP/1.1 404\r\ncontent-length: 2\r\n\r\n{}', status: 404, body: '{}', reusable: true },
  {
    name: 'chunked, with an extension and a trailer',
    wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;name=x\r\n{"a"\r\nB\r\n:"0123456"}\r\n0\r\nDigest: x\r\n\r\n',
    status: 200,
    body: '{"a":"0123456"}',
    reusable: true,
  },
  {
    name: 'chunked, upper-case size',
    wire: 'HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n',
    status: 200,
    body: '0123456789',
    reusable: true,
  },
  {
    name: 'HTTP/1.0 with a transfer coding: read, then the connection ends',
    wire: 'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
    status: 200,
    body: 'ok',
    reusable: false,
  },
  {
    name: 'fields named like Object.prototype’s properties',
    wire: 'HTTP/1.1 200 OK\r\nConstructor: a\r\n__proto__: b\r\nContent-Length: 0\r\n\r\n',
    status: 200,
    body: '',
    reusable: true,
    headers: { constructor: 'a', __proto__: 'b' },
  },
  {
    name: 'Transfer-Encoding beside Content-Length: the coding wins, the connection ends',
    wire: 'HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
    status: 200,
    body: 'ok',
    reusable: false,
  },
  {
    name: 'interim answers before the final one',
    wire: 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}',
    status: 201,
    body: '{}',
    reusable: true,
  },
  { name: '204 has no body', wire: 'HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n', status: 204, body: '', reusable: true },
  { name: 'Connection: close', wire: 'HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 2\r\n\r\n{}', status: 200, body: '{}', reusable: false },
  { name: 'HTTP/1.0 closes by default', wire: 'HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}', status: 200, body: '{}', reusable: false },
  {
    name: 'HTTP/1.0 with keep-alive',
    wire: 'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\n{}',
    status: 200,
    body: '{}',
    reusable: true,
  },
  {
    name: 'a body delimited by the end of the connection',
    wire: 'HTTP/1.1 500 Internal Server Error\r\n\r\noops',
    status: 500,
    body: 'oops',
    reusable: false,
    finish: true,
  },
  {
    name: 'repeated fields: set-cookie collects, retry-after keeps the first, others join',
    wire: 'HTTP/1.1 429 Too Many Requests\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nRetry-After: 3\r\nRetry-After: 9\r\nVary: a\r\nVary: b\r\nX-Empty:\r\nContent-Length: 0\r\n\r\n',
    status: 429,
    body: '',
    reusable: true,
    headers: { 'set-cookie': ['a=1', 'b=2'], 'retry-after': '3', vary: 'a, b', 'x-empty': '' },
  },
];

describe('ResponseParser: well-formed answers, however the bytes are cut', () => {
  it.each(CASES)('$name', ({ wire, status, body, reusable, finish, headers }) => {
    for (const pieces of splits(wire)) {
      const parsed = parse(pieces, { finish: finish ?? false });
      expect(parsed.heads.map((head) => head.status)).toEqual([status]);
      expect(parsed.body).toBe(body);
      expect(parsed.ends).toEqual([reusable]);
      if (headers) expect(parsed.heads[0]!.headers).toMatchObject(headers);
    }
  });

  it('reads two answers in a row on one connection, each after its request', () => {
    const one = 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na';
    const two = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nb\r\n0\r\n\r\n';
    const parsed = parse([one + two], { responses: 2 });
    expect(parsed.body).toBe('ab');
    expect(parsed.ends).toEqual([true, true]);
  });

  it('passes body bytes through untouched (decoding is the caller’s: a character may be split)', () => {
    const body = Buffer.from('"Zoë 🚀"');
    const head = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`);
    const chunks: Buffer[] = [];
    const parser = new ResponseParser({ head: () => undefined, body: (chunk) => chunks.push(Buffer.from(chunk)), end: () => undefined });
    parser.reset();
    const wire = Buffer.concat([head, body]);
    for (let at = 0; at < wire.length; at++) parser.feed(wire.subarray(at, at + 1));
    expect(Buffer.concat(chunks).toString('utf8')).toBe('"Zoë 🚀"');
  });
});

describe('ResponseParser: what it refuses', () => {
  it.each([
    ['a status line of another protocol', 'HTTP/2 200 OK\r\n\r\n', /status line/],
    ['a status line without a code', 'HTTP/1.1 OK\r\n\r\n', /status line/],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nbroken\r\n\r\n', /no name/],
    ['a folded header line (obs-fold)', 'HTTP/1.1 200 OK\r\nX-A: 1\r\n  2\r\n\r\n', /not a token|no name/],
    ['a space before the colon', 'HTTP/1.1 200 OK\r\nContent-Length : 1\r\n\r\n', /not a token/],
    ['a control character in a value', 'HTTP/1.1 200 OK\r\nX-A: a\x01b\r\n\r\n', /control character/],
    ['two different lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n', /two different Content-Length/],
    ['a length that is not a number', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', /not a length/],
    ['a chunk size that is not hexadecimal', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /not hexadecimal/],
    ['a chunk without its CRLF', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nabc', /does not end with CRLF/],
    ['a status code below 100', 'HTTP/1.1 099 Odd\r\nContent-Length: 0\r\n\r\n', /status line/],
    ['a transfer coding other than chunked', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n', /did not ask for/],
    ['a transfer coding alone, not chunked', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n', /did not ask for/],
    ['a vertical tab around a length (only spaces and tabs are whitespace)', 'HTTP/1.1 200 OK\r\nContent-Length: \x0b3\r\n\r\n', /control character/],
    ['a no-break space before a length', 'HTTP/1.1 200 OK\r\nContent-Length: \xa03\r\n\r\n', /not a length/],
    ['switching protocols', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n', /switched protocols/],
    ['bytes after a complete answer', 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab', /after the answer/],
  ])('%s', (_, wire, message) => {
    expect(() => parse([wire])).toThrow(message);
    try {
      parse([wire]);
    } catch (error) {
      expect((error as { code?: string }).code).toBe('MALFORMED_RESPONSE');
    }
  });

  it('refuses a head longer than the limit, even before it ends', () => {
    const long = `HTTP/1.1 200 OK\r\nX-Pad: ${'a'.repeat(MAX_HEAD_BYTES)}`;
    expect(() => parse([long])).toThrow(/longer than/);
  });

  // A 60 KB chunk extension: refused whether it arrives in one read, split, or a byte at a time.
  const longExtension = `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;x=${'a'.repeat(60 * 1024)}\r\nok\r\n0\r\n\r\n`;
  it.each([
    ['in one read', [longExtension]],
    ['in two reads', [longExtension.slice(0, 100), longExtension.slice(100)]],
    ['in 1 KB reads', longExtension.match(/[\s\S]{1,1024}/g)!],
  ])('refuses a chunk-size line longer than the limit %s', (_, pieces) => {
    expect(() => parse(pieces)).toThrow(/chunk-size line is too long/);
  });

  // Regression (issue 46's review): a bare LF never ends a line, so the client waited its whole
  // timeout; it is refused as soon as it arrives, however the bytes are cut.
  it.each([
    ['a status line', ['HTTP/1.1 200 OK\nContent-Length: 2\n\n{}'], /head ends with a bare LF/],
    ['a field line, the LF alone in its read', ['HTTP/1.1 200 OK\r\nContent-Length: 2', '\n', '\r\n{}'], /head ends with a bare LF/],
    ['the empty line ending the head', ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\n{}'], /head ends with a bare LF/],
    ['a chunk-size line', ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\n{}\r\n0\r\n\r\n'], /chunk-size line ends with a bare LF/],
    ['a trailer line', ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: 1\n\r\n'], /trailer line ends with a bare LF/],
  ])('refuses %s ended by a bare LF at once', (_, pieces, message) => {
    expect(() => parse(pieces)).toThrow(message);
  });

  it.each([
    ['in the head', 'HTTP/1.1 200 OK\r\nContent-Len'],
    ['in a body framed by length', 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'],
    ['in a chunked body', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab'],
  ])('reports a connection that closed %s', (_, wire) => {
    expect(() => parse([wire], { finish: true })).toThrow(/closed in the middle/);
  });

  it('takes a close before any byte of the answer as no answer at all (the pool reports it)', () => {
    expect(parse([], { finish: true })).toEqual({ heads: [], body: '', ends: [] });
  });
});

describe('listsToken', () => {
  it.each([
    ['close', 'close', true],
    ['Keep-Alive, Close', 'close', true],
    [['a', 'close'], 'close', true],
    ['closed', 'close', false],
    [undefined, 'close', false],
  ] as const)('%j lists %s: %s', (value, token, expected) => {
    expect(listsToken(value as string | string[] | undefined, token)).toBe(expected);
  });
});
