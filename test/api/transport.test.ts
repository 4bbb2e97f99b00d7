import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
