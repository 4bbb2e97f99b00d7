// What both of the local control plane's HTTP/1.1 servers (src/server/http-port.ts) do alike,
// against raw sockets on 127.0.0.1: the hand-written one (src/server/http1) and node's
// (src/server/http-server.ts). What each does its own way is in http1/connection.test.ts and
// http-server.test.ts.
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { RequestHandler, ServerLimits } from '../../src/server/http-port.js';
import { NodeHttpServer } from '../../src/server/http-server.js';
import { Http1Server } from '../../src/server/http1/server.js';
import { answers, bodyLengthOf, bodyOf, HUGE_ANSWER_BYTES, httpHarness, post, sleep } from './http-harness.js';

/** Where the two differ, each answers correctly its own way: node's refusals say no reason, and it answers 408 where the hand-written one closes silently. */
const SERVERS: Array<{ server: string; handWritten: boolean; create: (limits: ServerLimits, onRequest: RequestHandler) => Server }> = [
  { server: 'the hand-written server', handWritten: true, create: (limits, onRequest) => new Http1Server(limits, onRequest) },
  { server: "node's server", handWritten: false, create: (limits, onRequest) => new NodeHttpServer(limits, onRequest) },
];

/** A 400 refusal: the hand-written server says why in its body, node says nothing. */
const refused400 = (handWritten: boolean, why: string): RegExp =>
  handWritten ? new RegExp(`^HTTP/1\\.1 400 [\\s\\S]*${why}\\n$`) : /^HTTP\/1\.1 400 Bad Request\r\n/;

describe.each(SERVERS)('$server', ({ handWritten, create }) => {
  const { start, raw, hugeAnswerReadLate } = httpHarness(create, { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000, maxBodyBytes: 1024 });

  it('answers requests one after another on one kept-alive connection, with the fields an answer needs', async () => {
    const { port, connections } = await start();
    const client = await raw(port);
    client.socket.write(post('/a', '{"n":1}'));
    await client.until(/"n\\":1/);
    client.socket.write(post('/b', 'é'));
    await client.until(/\/b/);
    const [first, second] = answers(client.received());
    expect(first).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(first).toMatch(/\r\ncontent-length: \d+\r\n/);
    expect(first).toMatch(/\r\nDate: \w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT\r\n/);
    expect(first).toMatch(/\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n/);
    expect(bodyOf(first!)).toMatchObject({ method: 'POST', url: '/a', body: '{"n":1}' });
    expect(Buffer.from(bodyOf(second!).body, 'latin1').toString('utf8')).toBe('é');
    expect(connections()).toBe(1);
  });

  it('parses a request that arrives one byte at a time', async () => {
    const { port } = await start();
    const client = await raw(port);
    const bytes = Buffer.from(post('/bytes', '{"split":"everywhere"}', 'X-Extra:  v \r\n'));
    for (const byte of bytes) {
      client.socket.write(Buffer.from([byte]));
      await sleep(0);
    }
    const answer = answers(await client.until(/everywhere/))[0]!;
    expect(bodyOf(answer)).toMatchObject({ url: '/bytes', body: '{"split":"everywhere"}', headers: { 'x-extra': 'v' } });
  });

  it('answers pipelined requests in order, each after the one before', async () => {
    const { port, requests } = await start();
    const client = await raw(port);
    client.socket.write(post('/slow/30', 'first') + post('/second', 'second') + post('/slow/1', 'third'));
    const text = await client.until(/third/);
    expect(answers(text).map((answer) => bodyOf(answer).body)).toEqual(['first', 'second', 'third']);
    expect(requests).toEqual(['POST /slow/30', 'POST /second', 'POST /slow/1']);
  });

  it('reads a chunked body, with extensions and trailers', async () => {
    const { port } = await start();
    const client = await raw(port);
    client.socket.write('POST /chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n{"a"\r\n3\r\n:1}\r\n0\r\nX-Trailer: t\r\n\r\n');
    const answer = answers(await client.until(/chunked/))[0]!;
    expect(bodyOf(answer).body).toBe('{"a":1}');
    // The connection goes on after a chunked request.
    client.socket.write(post('/after', 'x'));
    await client.until(/\/after/);
  });

  it('answers a HEAD request without a body', async () => {
    const { port } = await start();
    const client = await raw(port);
    client.socket.write('HEAD /head HTTP/1.1\r\nHost: x\r\n\r\n');
    await client.until(/\r\n\r\n/);
    client.socket.write(post('/next', 'n'));
    const text = await client.until(/\/next/);
    expect(answers(text)[0]).toMatch(/\r\n\r\n$/);
  });

  it('closes after the answer when the client asks to (Connection: close, HTTP/1.0)', async () => {
    const { port } = await start();
    const closing = await raw(port);
    closing.socket.write(post('/close', 'x', 'Connection: close\r\n'));
    expect(await closing.closed).toMatch(/\r\nConnection: close\r\n\r\n/);
    const old = await raw(port);
    old.socket.write('POST /old HTTP/1.0\r\nContent-Length: 1\r\n\r\nx');
    expect(await old.closed).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\nConnection: close\r\n/);
    const oldKept = await raw(port);
    oldKept.socket.write('POST /old HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx');
    expect(await oldKept.until(/"x"/)).toMatch(/\r\nConnection: keep-alive\r\n/);
  });

  it('closes when the handler answers with Connection: close, or before the body has arrived', async () => {
    const { port } = await start();
    const early = await raw(port);
    // The body is still on its way: its rest would be read as the next request.
    early.socket.write('POST /early HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"partial":');
    const text = await early.closed;
    expect(text).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n[\s\S]*Connection: close\r\n\r\nno$/);
  });

  it('asks for the body of an Expect: 100-continue request only when the handler reads it', async () => {
    const { port } = await start();
    const waiting = await raw(port);
    waiting.socket.write('POST /continue HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 7\r\n\r\n');
    await waiting.until(/^HTTP\/1\.1 100 Continue\r\n\r\n$/);
    waiting.socket.write('{"c":1}');
    const text = await waiting.until(/"c\\":1/);
    expect(answers(text)[1]).toMatch(/^HTTP\/1\.1 200 OK/);
    // Refused first: no 100, no body read.
    const refused = await raw(port);
    refused.socket.write('POST /early HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 7\r\n\r\n');
    expect(await refused.closed).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('closes a connection without an answer when the handler destroys it (a lost response)', async () => {
    const { port } = await start();
    const client = await raw(port);
    client.socket.write(post('/lose', 'x'));
    expect(await client.closed).toBe('');
  });

  it('does not hold a handler that takes its time to the head deadline, nor the next request sent meanwhile', async () => {
    const { port } = await start({ headersMs: 150, requestMs: 300 });
    const client = await raw(port);
    client.socket.write(post('/slow/700', 'slow'));
    await sleep(50);
    client.socket.write(post('/next', 'next'));
    const text = await client.until(/"\/next"/);
    expect(answers(text).map((answer) => answer.slice(0, 15))).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
  });

  it('finishes the answers under way when it closes, and closes idle connections at once', async () => {
    const { server, port } = await start();
    const idle = await raw(port);
    idle.socket.write(post('/one', 'x'));
    await idle.until(/"\/one"/);
    const busy = await raw(port);
    busy.socket.write(post('/slow/100', 'busy'));
    await sleep(20);
    const closed = new Promise((resolve) => server.close(resolve));
    expect(await idle.closed).toMatch(/"\/one"/);
    expect(await busy.closed).toMatch(/^HTTP\/1\.1 200 [\s\S]*Connection: close[\s\S]*"busy"/);
    await closed;
  });

  it('answers fetch and node:http like any server (keep-alive, chunked request bodies, many at once)', async () => {
    const { port, connections } = await start();
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const response = await fetch(`http://127.0.0.1:${port}/fetch/${i}`, {
          method: 'POST',
          body: JSON.stringify({ i }),
          headers: { 'content-type': 'application/json' },
        });
        return (await response.json()) as { body: string };
      }),
    );
    expect(results.map((result) => JSON.parse(result.body).i)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const chunked = await new Promise<string>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/node', method: 'POST' }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.write('{"streamed":');
      setTimeout(() => req.end('true}'), 10);
    });
    expect(JSON.parse(chunked)).toMatchObject({ headers: { 'transfer-encoding': 'chunked' }, body: '{"streamed":true}' });
    expect(connections()).toBeLessThanOrEqual(21);
  });

  it('skips empty lines before a request (a client may send one after a body)', async () => {
    const { port } = await start();
    const client = await raw(port);
    client.socket.write(`${post('/one', '1')}\r\n${post('/two', '2')}\r\n\r\n${post('/three', '3')}`);
    expect(answers(await client.until(/"\/three"/)).map((answer) => bodyOf(answer).url)).toEqual(['/one', '/two', '/three']);
  });

  it('does not count the time a handler takes to ask for the body against the client', async () => {
    const { port } = await start({ requestMs: 300 });
    const client = await raw(port);
    client.socket.write('POST /slow-body/700 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n');
    await sleep(30);
    client.socket.write('hello');
    const text = await client.until(/"hello"/, 3_000);
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('closes a half-closed connection as soon as its last answer has gone out', async () => {
    const { port } = await start({ keepAliveMs: 5_000 });
    const client = await hugeAnswerReadLate(port, 300, true);
    const started = Date.now();
    const text = await client.closed;
    expect(bodyLengthOf(text)).toBe(HUGE_ANSWER_BYTES);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('writes an answer given in parts as one body', async () => {
    const { port } = await start();
    const response = await fetch(`http://127.0.0.1:${port}/parts`, { method: 'POST', body: 'p' });
    expect(await response.json()).toMatchObject({ url: '/parts', body: 'p' });
  });

  it('refuses a body larger than the limit, declared or sent in chunks, with 413', async () => {
    const { port } = await start();
    const declared = await raw(port);
    declared.socket.write('POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n');
    expect(await declared.closed).toMatch(/^HTTP\/1\.1 413 /);
    const chunked = await raw(port);
    chunked.socket.write('POST /big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
    for (let i = 0; i < 3; i++) chunked.socket.write(`200\r\n${'x'.repeat(512)}\r\n`);
    expect(await chunked.closed).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('refuses a body that breaks its framing while the handler waits for it: one answer, the refusal', async () => {
    const { port, requests } = await start();
    const client = await raw(port);
    client.socket.write('POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc');
    while (requests.length === 0) await sleep(5);
    client.socket.write('XY');
    expect(await client.closed).toMatch(refused400(handWritten, 'does not end with CRLF'));
    expect(answers(client.received())).toHaveLength(1);
    expect(requests).toEqual(['POST /x']);
  });

  it('refuses a request the client stops sending in the middle (it half-closes)', async () => {
    const { port } = await start();
    const client = await raw(port);
    client.socket.end('POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{"a"');
    expect(await client.closed).toMatch(refused400(handWritten, 'closed in the middle of the request'));
  });

  it('answers a complete request from a client that half-closed after sending it, then closes', async () => {
    const { port } = await start();
    const client = await raw(port);
    client.socket.end(post('/slow/20', 'last'));
    const text = await client.closed;
    expect(text).toMatch(/^HTTP\/1\.1 200 [\s\S]*"last"/);
    // (Node says nothing of the close it is about to make.)
    if (handWritten) expect(text).toMatch(/\r\nConnection: close\r\n/);
  });

  it('keeps its deadlines: nothing sent, a head not finished, a body not finished (408), an idle connection', async () => {
    const { port } = await start({ headersMs: 200, requestMs: 400, keepAliveMs: 300 });
    const silent = await raw(port);
    const slowHead = await raw(port);
    slowHead.socket.write('POST /x HTTP/1.1\r\nHost:');
    const slowBody = await raw(port);
    slowBody.socket.write('POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{"a"');
    const idle = await raw(port);
    idle.socket.write(post('/idle', 'x'));
    const started = Date.now();
    // (The hand-written server closes a connection that never sent a byte silently; node answers 408.)
    if (handWritten) expect(await silent.closed).toBe('');
    else expect(await silent.closed).toMatch(/^HTTP\/1\.1 408 /);
    expect(await slowHead.closed).toMatch(/^HTTP\/1\.1 408 /);
    expect(await slowBody.closed).toMatch(/^HTTP\/1\.1 408 /);
    expect(await idle.closed).toMatch(/^HTTP\/1\.1 200 [\s\S]*"\/idle"/);
    // Deadlines of a few hundred ms; the bound only tells "kept" from "never" on a loaded machine.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('stops reading requests while the client does not read its answers, and goes on when it does', async () => {
    const { port, requests } = await start();
    const client = await raw(port);
    client.socket.pause();
    const count = 400;
    // Sent in pieces (what arrives in one read is parsed whole): 400 answers of 64 KB are more
    // than the sockets' buffers hold, so reading stops well before the last piece.
    for (let sent = 0; sent < count; sent += 20) {
      client.socket.write(post('/large-answer', '').repeat(20));
      await sleep(5);
    }
    let seen = -1;
    while (seen !== requests.length) {
      seen = requests.length;
      await sleep(200);
    }
    expect(requests.length).toBeLessThan(count);
    client.socket.resume();
    const text = await client.untilEnough(
      (received) => received.length >= count * 65_536 && answers(received).length === count && received.endsWith('b'.repeat(65_536)),
      20_000,
    );
    expect(answers(text).every((answer) => answer.endsWith(`\r\n\r\n${'b'.repeat(65_536)}`))).toBe(true);
    expect(requests.length).toBe(count);
  }, 30_000);

  it('does not close an idle connection whose answers are still on their way out', async () => {
    const { port } = await start({ keepAliveMs: 200 });
    const client = await hugeAnswerReadLate(port, 1_200);
    const text = await client.untilEnough(
      // The length first: splitting 8 MB into answers on every piece received is slow.
      (received) => bodyLengthOf(received) === HUGE_ANSWER_BYTES && answers(received).length === 1,
      10_000,
    );
    expect(bodyLengthOf(text)).toBe(HUGE_ANSWER_BYTES);
  }, 20_000);

  it('refuses a header field that would inject another', async () => {
    const { port } = await start();
    const bad = await raw(port);
    bad.socket.write(post('/bad-field', ''));
    const text = await bad.until(/^HTTP\/1\.1 500 /);
    expect(text).not.toMatch(/Injected/);
  });

  it('does not let line ends alone hold a connection open, nor turn a trailing one into an error', async () => {
    const { port } = await start({ headersMs: 300, keepAliveMs: 300 });
    const crlf = await raw(port);
    const timer = setInterval(() => crlf.socket.write('\r\n'), 50);
    const started = Date.now();
    // (Node answers 408 at the head's deadline; the hand-written server closes silently.)
    expect(await crlf.closed).toMatch(handWritten ? /^$/ : /^(HTTP\/1\.1 408 [\s\S]*)?$/);
    clearInterval(timer);
    expect(Date.now() - started).toBeLessThan(2_000);
    const trailing = await raw(port);
    trailing.socket.write(`${post('/one', '1')}\r\n`);
    const text = await trailing.closed;
    expect(answers(text)).toHaveLength(1);
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('answers every request a client sent before it half-closed, then closes', async () => {
    const { port } = await start();
    const client = await raw(port);
    client.socket.end(post('/slow/20', 'a') + post('/b', 'b') + post('/c', 'c'));
    const text = await client.closed;
    expect(answers(text).map((answer) => bodyOf(answer).body)).toEqual(['a', 'b', 'c']);
    if (handWritten) expect(answers(text)[2]).toMatch(/\r\nConnection: close\r\n/);
  });

  it('answers a connection past maxConnections 503 with retry-after and closes it; a freed place is taken again', async () => {
    const { port } = await start({ maxConnections: 2 });
    const first = await raw(port);
    const second = await raw(port);
    // Both are served (and so counted) before the third arrives.
    for (const client of [first, second]) {
      client.socket.write('GET /a HTTP/1.1\r\nHost: x\r\n\r\n');
      await client.until(/"url":"\/a"/);
    }
    const third = await raw(port);
    third.socket.write('POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc');
    const refused = await third.closed;
    expect(refused).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(refused).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(refused).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))).toMatchObject({
      error: { code: 'unavailable', message: expect.stringContaining('limit of 2 connections') },
    });
    first.socket.destroy();
    await first.closed;
    await sleep(20);
    const fourth = await raw(port);
    fourth.socket.write('GET /c HTTP/1.1\r\nHost: x\r\n\r\n');
    await fourth.until(/"url":"\/c"/);
  });

  it('reads a body sent in many tiny chunks into one, and gives the same body to every reader', async () => {
    const { port } = await start();
    const client = await raw(port);
    const body = 'x'.repeat(300);
    // The body follows the head: both readers wait for it.
    client.socket.write('POST /twice HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
    await sleep(20);
    client.socket.write(`${[...body].map((c) => `1\r\n${c}\r\n`).join('')}0\r\n\r\n`);
    const text = await client.until(/x\|x+$/);
    expect(text.slice(text.indexOf('\r\n\r\n') + 4)).toBe(`${body}|${body}`);
  });
});
