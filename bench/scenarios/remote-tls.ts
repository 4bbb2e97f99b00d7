// Plan and apply against a remote-like Control API: TLS over a 20 ms round-trip network
// (lib/network-proxy.ts), where opening a connection costs round trips (TCP, then TLS), which the
// other scenarios' per-request latency leaves out. The server is `agentform server` in a child
// process, fresh for every apply from empty. Skipped with a notice where openssl cannot make the
// certificate. The lower bound counts the round trips on the critical path: the TCP and TLS
// handshakes, the reads, and the write rounds at --parallelism (at least 2: providers and
// connections, then the agents that use them).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, round, type Figure, type Scenario } from '../figures.js';
import { writeProject, type ProjectSize } from '../lib/generate.js';
import { startNetworkProxy } from '../lib/network-proxy.js';
import { expectSuccess, runCliTimed } from '../lib/run-cli.js';
import { withServerProcess } from '../lib/server-process.js';

const RTT_MS = 20;
const PARALLELISM = 16;
const RUNS = 5;
const SIZES: ProjectSize[] = [
  { agents: 20, connections: 50, providers: 10 },
  { agents: 1000, connections: 50, providers: 10 },
];

/** A certificate, its key, and the file the CLI is told to trust it from. */
interface Tls {
  key: Buffer;
  cert: Buffer;
  file: string;
}

/** A self-signed certificate for 127.0.0.1, or undefined without openssl. */
function certificate(dir: string): Tls | undefined {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
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
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
  } catch {
    return undefined;
  }
  return { key: readFileSync(key), cert: readFileSync(cert), file: cert };
}

/**
 * `work` against a fresh server behind the network; `env` trusts the certificate as the machine would
 * a company CA's (nothing else is switched off).
 */
async function behindNetwork<T>(tls: Tls, work: (proxyUrl: string, serverUrl: string, env: NodeJS.ProcessEnv) => Promise<T>): Promise<T> {
  return withServerProcess('agentform-bench-remote-', async (server) => {
    const proxy = await startNetworkProxy(server.url, { rttMs: RTT_MS, tls });
    try {
      return await work(proxy.url, server.url, { AGENTFORM_TOKEN: server.token, NODE_EXTRA_CA_CERTS: tls.file });
    } finally {
      await proxy.close();
    }
  });
}

async function timed(args: string[], env: NodeJS.ProcessEnv, allowed = [0]): Promise<number> {
  const run = await runCliTimed(args, env);
  expectSuccess(run, `agentform ${args[0]}`, allowed);
  return run.wallMs;
}

export const remoteTls: Scenario = {
  name: `remote over TLS (${RTT_MS} ms round trips)`,
  async run(): Promise<Figure[]> {
    const figures: Figure[] = [];
    const certDir = mkdtempSync(join(tmpdir(), 'agentform-bench-cert-'));
    try {
      const tls = certificate(certDir);
      if (!tls) {
        process.stderr.write('  skipped: openssl could not make a certificate\n');
        return figures;
      }
      for (const size of SIZES) {
        const dir = writeProject(size);
        try {
          const base = (url: string) => [dir, '-e', 'bench', '--url', url];
          const applyArgs = (url: string) => ['apply', ...base(url), '--auto-approve', '--parallelism', String(PARALLELISM)];
          const applies: number[] = [];
          for (let run = 0; run < RUNS; run++) applies.push(await behindNetwork(tls, (url, _, env) => timed(applyArgs(url), env)));
          // Plans with no changes, against a server the project was first applied to directly (untimed).
          const plans = await behindNetwork(tls, async (url, serverUrl, env) => {
            await timed(applyArgs(serverUrl), env);
            const walls: number[] = [];
            for (let run = 0; run < RUNS; run++) walls.push(await timed(['plan', ...base(url), '--detailed-exitcode'], env));
            return walls;
          });
          const writes = size.agents + size.connections + size.providers;
          const writeRounds = Math.max(2, Math.ceil(writes / PARALLELISM));
          const name = `${size.agents} agents, ${size.connections} connections, ${size.providers} providers`;
          figures.push(
            ms(
              `remote TLS, ${RTT_MS} ms RTT: apply from empty, ${name}, --parallelism ${PARALLELISM}`,
              `wall (median of ${RUNS})`,
              median(applies),
              (3 + writeRounds) * RTT_MS,
            ),
          );
          figures.push(ms(`remote TLS, ${RTT_MS} ms RTT: plan, no changes, ${name}`, `wall (median of ${RUNS})`, median(plans), 3 * RTT_MS));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    } finally {
      rmSync(certDir, { recursive: true, force: true });
    }
    return figures;
  },
};

const ms = (scenario: string, metric: string, value: number, lowerBound: number): Figure => ({
  scenario,
  metric,
  value: round(value),
  unit: 'ms',
  budget: null,
  lowerBound,
});
