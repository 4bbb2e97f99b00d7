// Plain http:// to a host that is not this machine is refused before any request unless
// --insecure-http; TLS certificate checks are never turned off (not by --insecure-http, not in code).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlApiClient, type Credential } from '../../src/api/client.js';
import { REPO, runCli } from '../helpers/cli.js';
import { selfSignedCertificate } from '../helpers/certificate.js';
import { filesBelow } from './leak-scan.js';

const execFileAsync = promisify(execFile);
const KEY = `svc_dev_${'a'.repeat(48)}`;
const CREDENTIAL: Credential = { kind: 'key', token: KEY };

describe('plain http is refused off this machine', () => {
  // Documentation addresses (RFC 5737) and a name: nothing is ever sent there.
  it.each(['http://192.0.2.10:4466', 'http://control.example.com', 'http://10.0.0.1'])('%s without --insecure-http', async (url) => {
    const result = await runCli(['whoami', '--url', url, '--token', KEY, '--debug']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--insecure-http');
    expect(result.stderr).not.toContain('→ POST'); // refused before any request
    expect(result.stderr + result.stdout).not.toContain('a'.repeat(48));
  });

  it('loopback http is allowed; --insecure-http lets a client be built for another host (no request made here)', () => {
    for (const baseUrl of ['http://127.0.0.1:1', 'http://localhost:1', 'http://[::1]:1']) {
      expect(() => new ControlApiClient({ baseUrl, credential: CREDENTIAL })).not.toThrow();
    }
    expect(() => new ControlApiClient({ baseUrl: 'http://192.0.2.10', credential: CREDENTIAL })).toThrow(/refusing plain http/);
    expect(() => new ControlApiClient({ baseUrl: 'http://192.0.2.10', credential: CREDENTIAL, insecureHttp: true })).not.toThrow();
  });
});

describe('TLS certificate checks are never disabled', () => {
  it('no source file turns them off; the transport asks for them outright', () => {
    const offenders = filesBelow(join(REPO, 'src')).filter((file) =>
      // rejectUnauthorized other than true; a custom identity check; the variable set (process.env or a child's env).
      /rejectUnauthorized\s*:(?!\s*true\b)|checkServerIdentity|process\.env(?:\.NODE_TLS_REJECT_UNAUTHORIZED|\[['"]NODE_TLS_REJECT_UNAUTHORIZED['"]\])\s*=(?!=)|NODE_TLS_REJECT_UNAUTHORIZED['"]?\s*:/.test(
        readFileSync(file, 'utf8'),
      ),
    );
    expect(offenders).toEqual([]);
    // Set outright, the option wins over NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment.
    expect(readFileSync(join(REPO, 'src', 'api', 'transport.ts'), 'utf8')).toMatch(/rejectUnauthorized: true/);
  });

  let dir: string | undefined;
  let server: Server | undefined;
  let url = '';
  let haveOpenssl = true;
  /** Per TLS connection the server accepted: whether it resumed an earlier session. */
  const handshakes: boolean[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentform-tls-'));
    if (!selfSignedCertificate(dir, '127.0.0.1', 'IP:127.0.0.1')) {
      haveOpenssl = false;
      return;
    }
    server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":"org_1","name":"Trusted?","slug":"x"}');
    });
    server.on('secureConnection', (socket) => handshakes.push(socket.isSessionReused()));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    if (server) await new Promise((resolve) => server!.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    [[], {}],
    [['--insecure-http'], {}],
    [[], { NODE_TLS_REJECT_UNAUTHORIZED: '0' }],
  ])('a self-signed certificate is refused (extra flags %j, environment %j)', async (extra, env) => {
    if (!haveOpenssl) return; // no openssl on this machine: the static check above still holds
    const result = await runCli(['whoami', '--url', url, '--token', KEY, ...extra], { env: { AGENTFORM_MAX_RETRIES: '0', ...env } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/TLS with https:\/\/127\.0\.0\.1:\d+ failed/);
    expect(result.stdout).not.toContain('Trusted?');
  });

  // The transport speaks TLS itself (node:tls, not node:https): a certificate the machine trusts
  // (here through NODE_EXTRA_CA_CERTS, as a company CA would be) is accepted, the answers come back
  // whole, and a later connection resumes the first one's session instead of a full handshake.
  it('a certificate the machine trusts is accepted, and later connections resume the session', async () => {
    if (!haveOpenssl) return;
    handshakes.length = 0;
    const transport = pathToFileURL(join(REPO, 'dist', 'src', 'api', 'transport.js')).href;
    const script = `
      const { Transport } = await import(${JSON.stringify(transport)});
      const transport = new Transport(${JSON.stringify(url)});
      const send = () => transport.send({ path: '/v1/organizations.get', headers: {}, body: '{}', timeoutMs: 5000, rpc: 'organizations.get', requestId: 'r' });
      const first = await send();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const more = await Promise.all([send(), send()]);
      await transport.close();
      console.log(JSON.stringify([first, ...more].map((answer) => [answer.status, answer.text])));`;
    const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir!, 'cert.pem') },
    });
    const body = '{"id":"org_1","name":"Trusted?","slug":"x"}';
    expect(JSON.parse(stdout)).toEqual([
      [200, body],
      [200, body],
      [200, body],
    ]);
    expect(handshakes).toEqual([false, true]);
  });

  // A TLS handshake with a server that speaks plain http fails with EPROTO ("wrong version
  // number"): it is a TLS failure to the user, not an unnamed network error.
  it('an https:// URL pointing at a plain-http port is reported as a TLS failure', async () => {
    const plain = createHttpServer((_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const result = await runCli(['whoami', '--url', `https://127.0.0.1:${(plain.address() as AddressInfo).port}`, '--token', KEY], {
        env: { AGENTFORM_MAX_RETRIES: '0' },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/tls: TLS with https:\/\/127\.0\.0\.1:\d+ failed \(EPROTO\)/);
    } finally {
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    }
  });
});
