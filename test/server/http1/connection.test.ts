// The local control plane's hand-written HTTP/1.1 server (src/server/http1) against raw sockets on
// 127.0.0.1, where it does its own way: deadlines, closing, backpressure, the body limit, framing
// and refusals. What it does as node's server does is in ../http-servers.test.ts.
import { describe, expect, it } from 'vitest';
import { Http1Server } from '../../../src/server/http1/server.js';
import { bodyLengthOf, HUGE_ANSWER_BYTES, httpHarness, post, sleep } from '../http-harness.js';

const { start, raw } = httpHarness((limits, onRequest) => new Http1Server(limits, onRequest), {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  maxBodyBytes: 1024,
});

describe('the local control plane HTTP/1.1 server', () => {
  it.each([
    ['a malformed request line', 'GARBAGE\r\n\r\n', 400],
    ['an unsupported version', 'POST / HTTP/2.0\r\n\r\n', 505],
    ['a length beside a coding', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc', 400],
    ['an unknown coding', 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n', 501],
    ['a head over 16 KB', `POST / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`, 431],
    ['a chunk size that is not hexadecimal', 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 400],
    ['an HTTP/1.1 request without Host', 'POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n', 400],
    ['a trailer section over 16 KB', `POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n${'X-T: aaaaaaaaaa\r\n'.repeat(1100)}\r\n`, 400],
  ])('refuses %s with its status, says why, and closes', async (_name, request, status) => {
    const { port, requests } = await start();
    const client = await raw(port);
    client.socket.write(request);
    const text = await client.closed;
    expect(text).toMatch(
      new RegExp(
        `^HTTP/1\\.1 ${status} [^\\r]+\\r\\nContent-Type: text/plain; charset=utf-8\\r\\nContent-Length: \\d+\\r\\nDate: [^\\r]+ GMT\\r\\nConnection: close\\r\\n\\r\\nthe request is not valid HTTP/1\\.1: .+\\n$`,
      ),
    );
    // Refused within the bytes that brought it: no handler saw it.
    expect(requests).toEqual([]);
  });

  it('lets an answer still on its way out finish when it closes', async () => {
    const { server, port } = await start();
    const client = await raw(port);
    client.socket.pause();
    client.socket.write(post('/huge-answer', ''));
    await sleep(300);
    const closed = new Promise((resolve) => server.close(resolve));
    await sleep(300);
    client.socket.resume();
    const text = await client.closed;
    expect(bodyLengthOf(text)).toBe(HUGE_ANSWER_BYTES);
    await closed;
  });

  it('finishes closing even when a connection has sent half a head', async () => {
    // The head's own deadline is far off: closing is what ends it.
    const { server, port } = await start({ headersMs: 10_000 });
    const client = await raw(port);
    client.socket.write('POST /x HTTP/1.1\r\nHost:');
    await sleep(20);
    const started = Date.now();
    await new Promise((resolve) => server.close(resolve));
    expect(Date.now() - started).toBeLessThan(2_000);
    await client.closed;
  });

  it('closes after an answer without a length', async () => {
    const { port } = await start();
    const unframed = await raw(port);
    unframed.socket.write(post('/unframed', ''));
    expect(await unframed.closed).toMatch(/\r\nConnection: close\r\n\r\nuntil the connection ends$/);
  });
});
