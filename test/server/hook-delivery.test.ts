// Hook deliveries end to end: a simulated session's events reach a local receiver signed with the
// connection's secret; a failing receiver sees exponential retries and then the delivery is dead.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SIGNATURE_HEADER, verifySignature } from '../../src/server/hooks/signing.js';
import { FieldCipher, serverKeySource } from '../../src/server/store/sealed.js';
import { call, MINIMAL_DEFINITION, post, startServer, waitFor } from './helpers.js';

interface Received {
  body: string;
  signature: string | undefined;
  at: number;
}

async function receiver(status: number): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d));
    req.on('end', () => {
      received.push({ body, signature: req.headers[SIGNATURE_HEADER] as string | undefined, at: Date.now() });
      res.writeHead(status);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received, server };
}

describe('hook deliveries', () => {
  let plane: Awaited<ReturnType<typeof startServer>>;
  let token: string;
  const servers: Server[] = [];

  beforeAll(async () => {
    plane = await startServer({ hookRetry: { maxAttempts: 4, baseDelayMs: 20 } });
    token = plane.tokens.dev!;
    await call(plane.url, 'agents.upsert', { slug: 'bot', definition: MINIMAL_DEFINITION }, token);
  });
  afterAll(async () => {
    await plane?.cleanup();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  const deliveries = async (): Promise<Array<{ id: string; status: string; attempts: number; connectionName: string; lastError: string | null }>> =>
    (await post(plane.url, '/dev/hooks/deliveries', {}, token)).body;

  it('delivers only subscribed event types, signed, to the hooksUrl', async () => {
    const target = await receiver(200);
    servers.push(target.server);
    await call(plane.url, 'connections.create', { name: 'signed', auth: { type: 'svc-signed' }, hooksUrl: target.url, hookEvents: ['session.started'] }, token);
    const sim = await post(plane.url, '/dev/sessions/simulate', { agent: 'bot', events: ['session.started', 'session.completed'] }, token);
    expect(sim.body.deliveries).toHaveLength(1);

    const delivered = await waitFor(async () => (await deliveries()).find((d) => d.id === sim.body.deliveries[0] && d.status === 'delivered'));
    expect(delivered.attempts).toBe(1);
    expect(target.received).toHaveLength(1);
    const [hit] = target.received;
    const payload = JSON.parse(hit!.body);
    expect(payload).toMatchObject({
      deliveryId: delivered.id,
      agent: 'bot',
      event: { type: 'session.started', seq: 1, sessionId: sim.body.sessionId, agentVersion: 1 },
    });
    expect(hit!.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    // The API never returns a generated signing secret; the test unseals it from the store to verify.
    const db = new Database(join(plane.dataDir, 'control-plane.db'), { readonly: true });
    const { signing_secret: sealed } = db.prepare("SELECT signing_secret FROM connections WHERE name = 'signed'").get() as { signing_secret: string };
    db.close();
    expect(sealed).toMatch(/^enc:v1:/);
    const secret = new FieldCipher(serverKeySource(plane.dataDir).existing()!).open('connections.signing_secret', sealed);
    expect(secret).toMatch(/^whsec_/);
    expect(verifySignature(hit!.body, hit!.signature!, secret)).toBe(true);
    expect(verifySignature(hit!.body.replace('bot', 'bob'), hit!.signature!, secret)).toBe(false);
  });

  it('a receiver verifies a delivery with the auth.secret it chose, as docs/local-control-plane.md shows', async () => {
    const target = await receiver(200);
    servers.push(target.server);
    const chosen = 'whsec_receiver-chosen-secret-0123456789';
    const created = await call(
      plane.url,
      'connections.create',
      { name: 'chosen', auth: { type: 'svc-signed', secret: chosen }, hooksUrl: target.url, hookEvents: ['order.paid'] },
      token,
    );
    expect(created.body.auth).toEqual({ type: 'svc-signed' }); // write-only
    const sim = await post(plane.url, '/dev/sessions/simulate', { agent: 'bot', events: ['order.paid'] }, token);
    await waitFor(async () => (await deliveries()).find((d) => d.id === sim.body.deliveries[0] && d.status === 'delivered'));
    const hit = target.received.at(-1)!;

    // What a receiver does, with nothing but node:crypto and the secret it chose (the docs' example).
    const verify = (rawBody: string, header: string, secret: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean => {
      const fields = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string]));
      const t = Number(fields.get('t'));
      const v1 = fields.get('v1') ?? '';
      if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > 300) return false;
      const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
      const given = Buffer.from(v1, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    };
    expect(verify(hit.body, hit.signature!, chosen)).toBe(true);
    expect(verify(hit.body, hit.signature!, 'whsec_some-other-secret-0123')).toBe(false);
    expect(verify(hit.body.replace('order.paid', 'order.void'), hit.signature!, chosen)).toBe(false);
    expect(verify(hit.body, hit.signature!, chosen, Math.floor(Date.now() / 1000) + 3_600)).toBe(false); // replayed an hour later

    // A secret too short to be a key is refused; an update can rotate it.
    const short = await call(plane.url, 'connections.create', { name: 'weak', auth: { type: 'svc-signed', secret: 'short' }, hooksUrl: target.url }, token);
    expect(short.status).toBe(400);
    expect(short.body.error.details).toEqual({ field: 'auth.secret' });
    const rotated = 'whsec_rotated-secret-abcdefghijklmnop';
    expect((await call(plane.url, 'connections.update', { id: created.body.id, auth: { type: 'svc-signed', secret: rotated } }, token)).status).toBe(200);
    const again = await post(plane.url, '/dev/sessions/simulate', { agent: 'bot', events: ['order.paid'] }, token);
    await waitFor(async () => (await deliveries()).find((d) => d.id === again.body.deliveries[0] && d.status === 'delivered'));
    const next = target.received.at(-1)!;
    expect(verify(next.body, next.signature!, rotated)).toBe(true);
    expect(verify(next.body, next.signature!, chosen)).toBe(false);
  });

  it('a connection with another auth type sends unsigned deliveries', async () => {
    const target = await receiver(204);
    servers.push(target.server);
    await call(plane.url, 'connections.create', { name: 'plain', auth: { type: 'none' }, hooksUrl: target.url, hookEvents: ['tool.called'] }, token);
    await post(plane.url, '/dev/sessions/simulate', { agent: 'bot', events: ['tool.called'] }, token);
    await waitFor(async () => (target.received.length > 0 ? true : undefined));
    expect(target.received[0]!.signature).toBeUndefined();
  });

  it('retries a failing receiver, then marks the delivery dead; redeliverAll requeues', async () => {
    const target = await receiver(500);
    servers.push(target.server);
    await call(plane.url, 'connections.create', { name: 'failing', auth: { type: 'none' }, hooksUrl: target.url, hookEvents: ['session.failed'] }, token);
    const sim = await post(plane.url, '/dev/sessions/simulate', { agent: 'bot', events: ['session.failed'] }, token);
    const id = sim.body.deliveries[0] as string;
    const dead = await waitFor(async () => (await deliveries()).find((d) => d.id === id && d.status === 'dead'));
    expect(dead).toMatchObject({ attempts: 4, lastError: 'HTTP 500', connectionName: 'failing' });
    expect(target.received).toHaveLength(4);

    const requeued = await call(plane.url, 'hooks.redeliverAll', {}, token);
    expect(requeued.body).toEqual({ requeued: 1, more: false });
    await waitFor(async () => (target.received.length === 5 ? true : undefined));
    const again = await waitFor(async () => (await deliveries()).find((d) => d.id === id && d.status === 'dead'));
    expect(again.attempts).toBe(5);
    expect((await call(plane.url, 'hooks.redeliver', { id: 'hkd_missing' }, token)).status).toBe(404);
  });

  it('redeliverAll works in batches of 100 and reports more', async () => {
    await call(plane.url, 'connections.create', { name: 'nowhere', auth: { type: 'none' }, hooksUrl: 'http://127.0.0.1:1/x', hookEvents: ['bulk'] }, token);
    const sim = await post(plane.url, '/dev/sessions/simulate', { agent: 'bot', events: Array.from({ length: 130 }, () => 'bulk') }, token);
    expect(sim.body.deliveries).toHaveLength(130);
    await waitFor(
      async () => ((await deliveries()).filter((d) => d.connectionName === 'nowhere' && d.status === 'dead').length === 130 ? true : undefined),
      20_000,
    );
    // Also the earlier dead one from the failing receiver: 131 in all.
    const first = (await call(plane.url, 'hooks.redeliverAll', {}, token)).body;
    expect(first).toEqual({ requeued: 100, more: true });
    const second = (await call(plane.url, 'hooks.redeliverAll', {}, token)).body;
    expect(second.requeued).toBeGreaterThan(0);
  }, 30_000);
});
