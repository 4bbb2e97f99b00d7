// The benchmark's network (bench/lib/network-proxy.ts): what it must cost for the remote-TLS
// figures to mean anything. A timer fires at most ~1 ms early (node's clock counts whole
// milliseconds), so each bound below allows 1 ms per timer on its path and holds on any machine;
// nothing here asserts an upper bound.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, Agent as HttpAgent, type Server } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNetworkProxy } from '../../bench/lib/network-proxy.js';

const RTT = 40;
let upstream: Server;
let upstreamUrl = '';
let certDir = '';
let tls: { key: Buffer; cert: Buffer } | undefined;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  certDir = mkdtempSync(join(tmpdir(), 'agentform-network-proxy-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-days',
        '1',
        '-keyout',
        join(certDir, 'key.pem'),
        '-out',
        join(certDir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    tls = { key: readFileSync(join(certDir, 'key.pem')), cert: readFileSync(join(certDir, 'cert.pem')) };
  } catch {
    tls = undefined; // no openssl: the TLS case is skipped, the plain one still runs
  }
});
afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
  rmSync(certDir, { recursive: true, force: true });
});

describe('startNetworkProxy', () => {
  // Timers on the path of a first answer: the TCP hold and a half round trip each way, and for TLS
  // two more halves (its handshake's round trip); of a later answer, the two halves.
  it.each([
    ['plain TCP', false, 2, 3],
    ['TLS', true, 3, 5],
  ] as const)(
    '%s: a new connection pays its handshakes before its first answer, a kept one only the round trip',
    async (_name, useTls, firstRoundTrips, firstTimers) => {
      if (useTls && !tls) return;
      const proxy = await startNetworkProxy(upstreamUrl, { rttMs: RTT, ...(useTls ? { tls } : {}) });
      const agent = useTls ? new HttpsAgent({ keepAlive: true, maxSockets: 1, ca: tls!.cert }) : new HttpAgent({ keepAlive: true, maxSockets: 1 });
      const send = (request: typeof httpRequest) =>
        new Promise<string>((resolve, reject) => {
          const outgoing = request(`${proxy.url}/v1/x`, { method: 'POST', agent }, (response) => {
            let body = '';
            response.on('data', (chunk: Buffer) => (body += chunk.toString()));
            response.on('end', () => resolve(body));
          });
          outgoing.on('error', reject);
          outgoing.end('{}');
        });
      try {
        expect(proxy.url.startsWith(useTls ? 'https://' : 'http://')).toBe(true);
        const timed = async () => {
          const started = performance.now();
          expect(await send(useTls ? httpsRequest : httpRequest)).toBe('{"ok":true}');
          return performance.now() - started;
        };
        expect(await timed()).toBeGreaterThanOrEqual(firstRoundTrips * RTT - firstTimers);
        expect(await timed()).toBeGreaterThanOrEqual(RTT - 2);
        expect(proxy.connections()).toBe(1);
      } finally {
        agent.destroy();
        await proxy.close();
      }
    },
  );
});
