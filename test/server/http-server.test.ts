// The local control plane's plain HTTP/1.1 path (src/server/http-server.ts: node's http.Server with
// the project's rules, in the shape of src/server/http-port.ts) against raw sockets on 127.0.0.1,
// where it does its own way: refusals, deadlines, the body limit, the connection cap, backpressure.
// What it does as the hand-written server does is in http-servers.test.ts.
import { describe, expect, it } from 'vitest';
import { NodeHttpServer } from '../../src/server/http-server.js';
import { httpHarness } from './http-harness.js';

const { start, raw } = httpHarness((limits, onRequest) => new NodeHttpServer(limits, onRequest), {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  maxBodyBytes: 1024,
  maxConnections: 256,
});

describe('the local control plane HTTP/1.1 server', () => {
  // Node's answers: the status and `Connection: close`, no reason (its default 'clientError').
  it.each([
    ['a malformed request line', 'GARBAGE\r\n\r\n', 400],
    ['a length beside a coding', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc', 400],
    ['chunked before another coding', 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n', 400],
    ['a head over 16 KB', `POST / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`, 431],
    ['bare LF line ends', 'POST / HTTP/1.1\nHost: x\nContent-Length: 0\n\n', 400],
    ['a bare LF ending one field', 'POST / HTTP/1.1\r\nHost: x\nContent-Length: 0\r\n\r\n', 400],
  ])('refuses %s with its status, and closes', async (_name, request, status) => {
    const { port, requests } = await start();
    const client = await raw(port);
    client.socket.write(request);
    expect(await client.closed).toMatch(new RegExp(`^HTTP/1\\.1 ${status} [^\\r]+\\r\\nConnection: close\\r\\n\\r\\n$`));
    // Refused within the bytes that brought it: no handler saw it.
    expect(requests).toEqual([]);
  });

  it.each(['gzip', 'gzip, chunked'])('refuses the transfer coding %s with 501, before the handler, and closes', async (coding) => {
    const { port } = await start();
    const client = await raw(port);
    client.socket.write(`POST /coded HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: ${coding}\r\n\r\n`);
    const text = await client.closed;
    expect(text).toMatch(/^HTTP\/1\.1 501 [\s\S]*connection: close\r\n[\s\S]*is not supported \(chunked is\)\n$/i);
    expect(text).not.toMatch(/coded/);
  });

  it('refuses an HTTP/1.1 request without Host with 400, before the handler', async () => {
    const { port } = await start();
    const client = await raw(port);
    client.socket.write('POST /no-host HTTP/1.1\r\nContent-Length: 0\r\n\r\n');
    const text = await client.closed;
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\nConnection: close\r\n/);
    expect(text).not.toMatch(/no-host/);
  });
});
