import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendHook } from '../../../src/server/hooks/send.js';
import { verifySignature } from '../../../src/server/hooks/signing.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  url: string;
  received: Received[];
  server: Server;
}

const servers: Server[] = [];

/** A loopback receiver answering every request with `status` (or not at all with 'hang'). */
async function startReceiver(status: number | 'hang' = 204): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (status !== 'hang') res.writeHead(status, { 'content-type': 'text/plain' }).end('receiver says hi');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, received, server };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

const BODY = JSON.stringify({ event: 'session.created', id: 'evt_1', data: { note: 'héllo' } });
const SECRET = 'whsec_send_test';

describe('sendHook', () => {
  it('POSTs the body as JSON with a signature the receiver can verify', async () => {
    const receiver = await startReceiver(200);
    const result = await sendHook({ url: receiver.url, body: BODY, signingSecret: SECRET, headers: { 'x-delivery-id': 'd1' } });

    expect(result).toEqual({ ok: true, status: 200 });
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/hooks');
    expect(request!.body).toBe(BODY);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['x-delivery-id']).toBe('d1');
    const signature = request!.headers['x-svc-signature'];
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(request!.body, signature as string, SECRET)).toBe(true);
    expect(verifySignature(request!.body, signature as string, 'another secret')).toBe(false);
    // The secret itself never travels.
    expect(JSON.stringify(request!.headers)).not.toContain(SECRET);
  });

  it('sends no signature without a secret, and callers cannot forge one', async () => {
    const receiver = await startReceiver(202);
    const result = await sendHook({
      url: receiver.url,
      body: BODY,
      headers: { 'x-svc-signature': 't=1,v1=forged', 'content-type': 'text/plain' },
    });
    expect(result).toEqual({ ok: true, status: 202 });
    expect(receiver.received[0]!.headers['x-svc-signature']).toBeUndefined();
    expect(receiver.received[0]!.headers['content-type']).toBe('application/json');
  });

  it.each([
    { status: 200, ok: true },
    { status: 204, ok: true },
    { status: 299, ok: true },
    { status: 301, ok: false },
    { status: 400, ok: false },
    { status: 410, ok: false },
    { status: 500, ok: false },
    { status: 503, ok: false },
  ])('HTTP $status → ok $ok', async ({ status, ok }) => {
    const receiver = await startReceiver(status);
    const result = await sendHook({ url: receiver.url, body: BODY, signingSecret: SECRET });
    expect(result).toEqual(ok ? { ok, status } : { ok, status, error: `HTTP ${status}` });
  });

  it('reports a refused connection without throwing', async () => {
    const receiver = await startReceiver();
    servers.splice(servers.indexOf(receiver.server), 1);
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));

    const result = await sendHook({ url: receiver.url, body: BODY, signingSecret: SECRET });
    expect(result.ok).toBe(false);
    expect(result.status).toBeUndefined();
    expect(result.error).toMatch(/ECONNREFUSED/);
    expect(result.error).not.toContain(SECRET);
  });

  it('gives up after timeoutMs when the receiver never answers', async () => {
    const receiver = await startReceiver('hang');
    const started = Date.now();
    const result = await sendHook({ url: receiver.url, body: BODY, timeoutMs: 200 });
    expect(result).toEqual({ ok: false, error: 'timed out after 200 ms' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it.each([
    { url: 'not a url', error: 'invalid URL' },
    { url: 'ftp://127.0.0.1/hooks', error: 'unsupported URL scheme ftp:' },
  ])('bad URL $url → ok false, no throw', async ({ url, error }) => {
    await expect(sendHook({ url, body: BODY })).resolves.toEqual({ ok: false, error });
  });
});
