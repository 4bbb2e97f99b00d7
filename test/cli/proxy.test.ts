// The CLI behind an HTTP proxy (HTTPS_PROXY / HTTP_PROXY), as in a corporate CI runner: a real
// local control plane behind a TLS front with a certificate for api.agentform.test, reached only
// through a test proxy on 127.0.0.1 that maps every name to 127.0.0.1 (so the name never needs DNS).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { haveOpenssl, selfSignedCertificate } from '../helpers/certificate.js';
import { copyExample, REPO, runCli, TEST_SERVER_PROFILE } from '../helpers/cli.js';
import { startTestProxy, type TestProxy } from '../helpers/http-proxy.js';

const execFileAsync = promisify(execFile);
const API_HOST = 'api.agentform.test';
const PASSWORD = 's3cret-proxy-pass';

let dir: string;
let plane: LocalControlPlane;
let front: TlsServer | undefined;
let frontPort = 0;
let certFile = '';
const frontSockets = new Set<Socket>();
let proxy: TestProxy;
let guardedProxy: TestProxy;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentform-proxy-'));
  plane = await startLocalControlPlane({ dataDir: join(dir, 'plane'), environments: ['dev'], profile: TEST_SERVER_PROFILE });
  proxy = await startTestProxy();
  guardedProxy = await startTestProxy({ credentials: `ci-bot:${PASSWORD}` });
  const files = selfSignedCertificate(dir, API_HOST, `DNS:${API_HOST}`);
  if (!files) return;
  certFile = files.certFile;
  const keyFile = files.keyFile;
  // TLS in front of the plane (plain http on 127.0.0.1), as a load balancer would terminate it.
  const planePort = Number(new URL(plane.url).port);
  front = createTlsServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (secure) => {
    const upstream = connect(planePort, '127.0.0.1');
    for (const socket of [secure, upstream]) {
      frontSockets.add(socket);
      socket.on('close', () => frontSockets.delete(socket));
      socket.on('error', () => (secure.destroy(), upstream.destroy()));
    }
    secure.pipe(upstream).pipe(secure);
  });
  await new Promise<void>((resolve) => front!.listen(0, '127.0.0.1', resolve));
  frontPort = (front.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const socket of frontSockets) socket.destroy();
  await Promise.all([proxy?.close(), guardedProxy?.close(), front && new Promise<void>((resolve) => front!.close(() => resolve())), plane?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const token = (): string => plane.tokens.dev!;
const httpsUrl = (): string => `https://${API_HOST}:${frontPort}`;
const withCredentials = (url: string, user = 'ci-bot', password = PASSWORD): string =>
  url.replace('http://', `http://${user}:${encodeURIComponent(password)}@`);
const trusted = (): Record<string, string> => ({ NODE_EXTRA_CA_CERTS: certFile });

/** Nothing of the proxy's credentials, in clear or as the Basic value, anywhere in the output. */
function expectNoProxySecret(output: string): void {
  expect(output).not.toContain(PASSWORD);
  expect(output).not.toContain(Buffer.from(`ci-bot:${PASSWORD}`).toString('base64'));
}

describe.skipIf(!haveOpenssl())('an https:// API through HTTPS_PROXY (CONNECT tunnels)', () => {
  it('whoami goes through the proxy with its credentials, and says so under --debug without them', async () => {
    const before = guardedProxy.visits.length;
    const result = await runCli(['whoami', '--url', httpsUrl(), '--token', token(), '--json', '--debug'], {
      env: { ...trusted(), HTTPS_PROXY: withCredentials(guardedProxy.url) },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ environment: { slug: 'dev' } });
    const visits = guardedProxy.visits.slice(before);
    expect(visits.length).toBeGreaterThan(0);
    for (const visit of visits)
      expect(visit).toEqual({ line: `CONNECT ${API_HOST}:${frontPort}`, authorization: `Basic ${Buffer.from(`ci-bot:${PASSWORD}`).toString('base64')}` });
    expect(result.stderr).toContain(`connecting to ${httpsUrl()} through the proxy ${guardedProxy.url} (HTTPS_PROXY)`);
    expectNoProxySecret(result.stdout + result.stderr);
  });

  it('apply and plan of a project: every connection (the reads, the writes opened ahead) is a tunnel', async () => {
    const project = await copyExample('quickstart');
    try {
      const before = proxy.visits.length;
      const env = { ...trusted(), https_proxy: proxy.url, AGENTFORM_TOKEN: token() };
      const apply = await runCli(['apply', project, '-e', 'dev', '--url', httpsUrl(), '--auto-approve', '--parallelism', '4'], { env });
      expect(apply.code, apply.stderr).toBe(0);
      expect(apply.stdout).toMatch(/Apply complete! Resources: \d+ added/);
      const plan = await runCli(['plan', project, '-e', 'dev', '--url', httpsUrl(), '--detailed-exitcode'], { env });
      expect(plan.code, plan.stderr + plan.stdout).toBe(0);
      const visits = proxy.visits.slice(before);
      expect(visits.length).toBeGreaterThan(1);
      expect(new Set(visits.map((visit) => visit.line))).toEqual(new Set([`CONNECT ${API_HOST}:${frontPort}`]));
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('a tunnel the proxy could not open (502) is tried again, and the command succeeds', async () => {
    const flaky = await startTestProxy({ unavailableConnects: 1 });
    try {
      const result = await runCli(['whoami', '--url', httpsUrl(), '--token', token(), '--json', '--debug'], { env: { ...trusted(), HTTPS_PROXY: flaky.url } });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/retrying \S+ in \d+ ms \(attempt 2 of \d+\) after proxy_unavailable/);
      expect(flaky.visits.length).toBeGreaterThan(1);
    } finally {
      await flaky.close();
    }
  });

  // The client in a child process (the certificate is trusted through NODE_EXTRA_CA_CERTS, read at start).
  it('a create whose tunnel could not be opened is sent again without looking for what it made: it was never sent', async () => {
    const flaky = await startTestProxy({ unavailableConnects: 1 });
    try {
      const client = pathToFileURL(join(REPO, 'dist', 'src', 'api', 'client.js')).href;
      const script = `
        const { ControlApiClient } = await import(${JSON.stringify(client)});
        const attempts = [];
        const client = new ControlApiClient({
          baseUrl: ${JSON.stringify(httpsUrl())},
          credential: { kind: 'key', token: ${JSON.stringify(token())} },
          proxyVariables: { HTTPS_PROXY: ${JSON.stringify(flaky.url)} },
          retry: { baseDelayMs: 1, maxDelayMs: 2 },
          onRequest: (event) => attempts.push([event.rpc, event.status]),
        });
        const created = await client.secretsCreate({ name: 'through-a-flaky-proxy', value: 'never-printed-1234' });
        await client.close();
        console.log(JSON.stringify({ name: created.name, attempts }));`;
      const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH ?? '', ...trusted() } });
      expect(JSON.parse(stdout)).toEqual({
        name: 'through-a-flaky-proxy',
        attempts: [
          ['secrets.create', 0],
          ['secrets.create', 200],
        ],
      });
    } finally {
      await flaky.close();
    }
  });

  it('a proxy that wants credentials: exit 1, what to do, no stack trace', async () => {
    const result = await runCli(['whoami', '--url', httpsUrl(), '--token', token()], { env: { ...trusted(), HTTPS_PROXY: guardedProxy.url } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `the proxy ${guardedProxy.url} wants credentials (407 Proxy Authentication Required): give them in the proxy URL, http://user:password@host:port`,
    );
    expect(result.stderr).toContain(`(for ${httpsUrl()}; check HTTPS_PROXY and NO_PROXY)`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('wrong credentials are refused without being echoed', async () => {
    const result = await runCli(['whoami', '--url', httpsUrl(), '--token', token()], {
      env: { ...trusted(), HTTPS_PROXY: withCredentials(guardedProxy.url, 'ci-bot', 'wrong-pass-123') },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the proxy ${guardedProxy.url} refused the credentials in the proxy URL (407 Proxy Authentication Required)`);
    expect(result.stdout + result.stderr).not.toContain('wrong-pass-123');
    expect(result.stdout + result.stderr).not.toContain(Buffer.from('ci-bot:wrong-pass-123').toString('base64'));
  });

  it("the API's certificate is checked inside the tunnel: one the machine does not trust fails as TLS, the proxy named", async () => {
    const result = await runCli(['whoami', '--url', httpsUrl(), '--token', token()], { env: { HTTPS_PROXY: proxy.url } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`tls: TLS with ${httpsUrl()} failed (`);
    expect(result.stderr).toContain(`(through the proxy ${proxy.url}, from HTTPS_PROXY)`);
  });

  it('a proxy nobody listens on: named as the proxy, not as the API', async () => {
    const result = await runCli(['whoami', '--url', httpsUrl(), '--token', token()], {
      env: { ...trusted(), HTTPS_PROXY: withCredentials('http://127.0.0.1:1') },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`could not connect to the proxy http://127.0.0.1:1 (ECONNREFUSED) (for ${httpsUrl()}; check HTTPS_PROXY and NO_PROXY)`);
    expectNoProxySecret(result.stdout + result.stderr);
  });
});

describe('an http:// API through HTTP_PROXY (absolute-form requests)', () => {
  it('whoami with --insecure-http: the proxy forwards, given its credentials', async () => {
    const planePort = new URL(plane.url).port;
    const before = guardedProxy.visits.length;
    const result = await runCli(['whoami', '--url', `http://${API_HOST}:${planePort}`, '--insecure-http', '--token', token(), '--json', '--debug'], {
      env: { HTTP_PROXY: withCredentials(guardedProxy.url) },
    });
    expect(result.code, result.stderr).toBe(0);
    const visits = guardedProxy.visits.slice(before);
    expect(visits.length).toBeGreaterThan(0);
    for (const visit of visits) {
      expect(visit.line).toMatch(new RegExp(`^POST http://${API_HOST.replace(/\./g, '\\.')}:${planePort}/v1/`));
      expect(visit.authorization).toBe(`Basic ${Buffer.from(`ci-bot:${PASSWORD}`).toString('base64')}`);
    }
    expectNoProxySecret(result.stdout + result.stderr);
  });

  it("the proxy's 407 is the proxy's, not the API's: named, with the variable to check", async () => {
    const planePort = new URL(plane.url).port;
    const result = await runCli(['whoami', '--url', `http://${API_HOST}:${planePort}`, '--insecure-http', '--token', token()], {
      env: { HTTP_PROXY: guardedProxy.url },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `proxy (HTTP 407): the proxy ${guardedProxy.url} wants credentials (407): give them in the proxy URL, http://user:password@host:port (for http://${API_HOST}:${planePort}; check HTTP_PROXY and NO_PROXY)`,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('a proxy that refuses with 401 and a Basic challenge (as tinyproxy does) is told apart from the API refusing the key', async () => {
    const planePort = new URL(plane.url).port;
    const tinyLike = await startTestProxy({ credentials: `ci-bot:${PASSWORD}`, refusal: 401 });
    try {
      const result = await runCli(['whoami', '--url', `http://${API_HOST}:${planePort}`, '--insecure-http', '--token', token()], {
        env: { HTTP_PROXY: withCredentials(tinyLike.url, 'ci-bot', 'wrong-pass-123') },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`proxy (HTTP 401): the proxy ${tinyLike.url} refused the credentials in the proxy URL (401)`);
      expect(result.stdout + result.stderr).not.toContain('wrong-pass-123');
    } finally {
      await tinyLike.close();
    }
  });

  it('the local control plane on 127.0.0.1 is reached directly, whatever the proxy variables say', async () => {
    const before = proxy.visits.length;
    const env = { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: '' };
    const result = await runCli(['whoami', '--url', plane.url, '--token', token(), '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(proxy.visits.length).toBe(before);
  });

  it.each([
    ['socks5://127.0.0.1:1080', 'HTTP_PROXY names a socks5:// proxy; agentform talks to proxies over http:// only'],
    ['http://user:pw@[oops', 'HTTP_PROXY is not a proxy URL'],
  ])('a proxy URL it cannot use (%s): a clear error before any request', async (value, message) => {
    const result = await runCli(['whoami', '--url', `http://${API_HOST}:1`, '--insecure-http', '--token', token()], { env: { HTTP_PROXY: value } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
