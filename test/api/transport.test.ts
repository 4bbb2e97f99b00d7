import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { Transport } from '../../src/api/transport.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server answering with `parts`, each written (and flushed) on its own after a pause. */
async function answering(parts: Buffer[]): Promise<string> {
  const server = createServer(async (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    for (const part of parts) {
      response.write(part);
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    response.end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const send = (transport: Transport) => transport.send({ path: '/x', headers: {}, body: '{}', timeoutMs: 5_000, rpc: 'agents.list', requestId: 'r1' });

describe('Transport answers', () => {
  // The body is decoded chunk by chunk as it arrives: a character split between two chunks (the
  // socket's reads can end anywhere) must come out whole, as when the chunks were joined first.
  it('decodes a body whose multi-byte characters are split between chunks', async () => {
    const body = Buffer.from(JSON.stringify({ name: 'Zoë 🚀 ☃', pad: 'x'.repeat(100) }));
    const emoji = body.indexOf(Buffer.from('🚀'));
    const parts = [body.subarray(0, emoji + 1), body.subarray(emoji + 1, emoji + 3), body.subarray(emoji + 3)];
    const transport = new Transport(await answering(parts));
    try {
      const exchange = await send(transport);
      expect(exchange.status).toBe(200);
      expect(exchange.text).toBe(body.toString('utf8'));
      expect(JSON.parse(exchange.text)).toEqual({ name: 'Zoë 🚀 ☃', pad: 'x'.repeat(100) });
    } finally {
      await transport.close();
    }
  });

  it('replaces invalid UTF-8 with U+FFFD, as decoding the whole body at once did', async () => {
    const body = Buffer.concat([Buffer.from('"a'), Buffer.from([0xff, 0xc3]), Buffer.from('b"')]);
    const transport = new Transport(await answering([body.subarray(0, 3), body.subarray(3)]));
    try {
      expect((await send(transport)).text).toBe(body.toString('utf8'));
    } finally {
      await transport.close();
    }
  });
});

describe('Transport requests', () => {
  /** A server recording each request's raw headers and body. */
  async function recording(): Promise<{ url: string; seen: Array<{ headers: string[]; body: string }> }> {
    const seen: Array<{ headers: string[]; body: string }> = [];
    const server = createServer((incoming, response) => {
      let body = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk: string) => (body += chunk));
      incoming.on('end', () => {
        seen.push({ headers: incoming.rawHeaders, body });
        response.end('{}');
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
  }

  /** What node sends for the same request with the headers as an object (how the transport sent them before). */
  const viaObject = (url: string, headers: Record<string, string>, body: string | undefined) =>
    new Promise<void>((resolve, reject) => {
      const all: Record<string, string | number> = { ...headers };
      if (body !== undefined) all['content-length'] = Buffer.byteLength(body);
      const sent = request(`${url}/v1/x`, { method: 'POST', headers: all }, (response: IncomingMessage) => response.resume().on('end', resolve));
      sent.on('error', reject);
      sent.end(body);
    });

  // The headers of a request with a body go to node as a flat list (no per-request header table):
  // the bytes on the wire must stay what the object form sent, Host and lengths included.
  it.each([
    ['with a body (non-ASCII: the length is in bytes)', '{"name":"Zoë"}'],
    ['without a body', undefined],
  ])('sends the same headers and body as the object form, %s', async (_, body) => {
    const { url, seen } = await recording();
    const headers = {
      'x-request-id': 'r1',
      accept: 'application/json',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      authorization: 'Bearer t',
    };
    const transport = new Transport(url);
    try {
      await transport.send({ path: '/v1/x', headers, ...(body !== undefined ? { body } : {}), timeoutMs: 5_000, rpc: 'agents.list', requestId: 'r1' });
    } finally {
      await transport.close();
    }
    await viaObject(url, headers, body);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toEqual(seen[1]);
    expect(seen[0]!.headers).toContain('Host');
  });

  it('refuses a request path with a space or a line break (no request-line injection)', async () => {
    const { url, seen } = await recording();
    const transport = new Transport(url);
    try {
      for (const path of ['/v1/x y', '/v1/x\r\nx-evil: 1']) {
        await expect(transport.send({ path, headers: {}, body: '{}', timeoutMs: 5_000, rpc: 'agents.list', requestId: 'r1' })).rejects.toThrow(
          /must be escaped/,
        );
      }
      expect(seen).toEqual([]);
    } finally {
      await transport.close();
    }
  });

  it('refuses a header value node would refuse (no header injection through the list form)', async () => {
    const { url } = await recording();
    const transport = new Transport(url);
    try {
      await expect(
        transport.send({
          path: '/v1/x',
          headers: { authorization: 'Bearer a\r\nx-evil: 1' },
          body: '{}',
          timeoutMs: 5_000,
          rpc: 'agents.list',
          requestId: 'r1',
        }),
      ).rejects.toThrow();
    } finally {
      await transport.close();
    }
  });
});

describe('Transport memory', () => {
  // An apply makes thousands of requests over a few kept-alive connections: a connection (or the
  // pool) that held on to its last exchange would keep that answer's text alive (a list of 5,000
  // agents is 6.6 MB) for as long as the connection stays open.
  it('keeps no settled answer reachable while its connection stays open', async () => {
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    const transport = new Transport(await answering([Buffer.from(JSON.stringify({ pad: 'x'.repeat(100_000) }))]));
    let answer: WeakRef<object>;
    try {
      answer = new WeakRef(await send(transport));
      // A WeakRef's target stays until the job that made it has ended.
      await new Promise((resolve) => setImmediate(resolve));
      collectGarbage();
      expect(answer.deref()).toBeUndefined();
    } finally {
      await transport.close();
    }
  });
});
