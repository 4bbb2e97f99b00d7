// Plan and apply at scale against the local control plane behind a 20 ms latency proxy.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlApiClient } from '../../src/api/client.js';
import { LOCAL_URL_DURABILITY, startLocalControlPlane } from '../../src/server/embedded.js';
import { round, type Figure, type Scenario } from '../figures.js';
import { changeAgents, writeProject, type ProjectSize } from '../lib/generate.js';
import { isReadRpc, total } from '../lib/latency-proxy.js';
import { startLatencyProxyThread, type ProxyThread } from '../lib/latency-proxy-thread.js';
import { expectSuccess, runCliMedian, runCliTimed } from '../lib/run-cli.js';

/** Repeatable runs (plans) report the median of this many. */
const RUNS = 3;

const LATENCY_MS = 20;
const PARALLELISM = 16;
const SIZE: ProjectSize = { agents: 1000, connections: 50, providers: 10 };

async function withControlPlane<T>(work: (env: NodeJS.ProcessEnv, proxy: ProxyThread) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agentform-bench-data-'));
  // As `url: local` runs it: these scenarios measure the CLI, not the server's fsyncs.
  const local = await startLocalControlPlane({ dataDir, environments: ['bench'], durability: LOCAL_URL_DURABILITY });
  const proxy = await startLatencyProxyThread(local.url, LATENCY_MS);
  try {
    return await work({ AGENTFORM_URL_BENCH: proxy.url, AGENTFORM_TOKEN_BENCH: local.tokens.bench as string }, proxy);
  } finally {
    await proxy.close();
    await local.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const ms = (scenario: string, metric: string, value: number, budget: number | null, lowerBound: number | null): Figure => ({
  scenario,
  metric,
  value: round(value),
  unit: 'ms',
  budget,
  lowerBound,
});
const requests = (scenario: string, metric: string, value: number, budget: number | null): Figure => ({
  scenario,
  metric,
  value,
  unit: 'requests',
  budget,
  lowerBound: null,
});

export const planAndApply: Scenario = {
  name: 'plan and apply (1,000 agents)',
  async run(): Promise<Figure[]> {
    const figures: Figure[] = [];
    const dir = writeProject(SIZE);
    try {
      await withControlPlane(async (env, proxy) => {
        const applyName = `apply from empty: ${SIZE.agents} agents, ${SIZE.connections} connections, ${SIZE.providers} providers, --parallelism ${PARALLELISM}`;
        const apply = await runCliTimed(['apply', dir, '--auto-approve', '--parallelism', String(PARALLELISM)], env);
        expectSuccess(apply, 'apply from empty');
        const writes = total(await proxy.counts(), (rpc) => !isReadRpc(rpc));
        figures.push(ms(applyName, 'wall', apply.wallMs, 3000, (1 + Math.ceil(writes / PARALLELISM)) * LATENCY_MS));
        figures.push(requests(applyName, 'requests', total(await proxy.counts()), null));

        await proxy.reset();
        const noop = await runCliTimed(['apply', dir, '--auto-approve'], env);
        expectSuccess(noop, 'apply with nothing to do');
        figures.push(
          requests(
            'apply with nothing to do',
            'write requests',
            total(await proxy.counts(), (rpc) => !isReadRpc(rpc)),
            0,
          ),
        );

        await proxy.reset();
        const plan = await runCliMedian(['plan', dir, '--detailed-exitcode'], env, RUNS);
        figures.push(ms('plan: 1,000 agents, no changes', `wall (median of ${RUNS})`, plan.wallMs, 1000, LATENCY_MS));
        figures.push(requests('plan: 1,000 agents, no changes', 'requests per plan', total(await proxy.counts()) / RUNS, 20));

        changeAgents(dir, SIZE, 0.1);
        const changed = await runCliMedian(['plan', dir, '--detailed-exitcode'], env, RUNS, [2]);
        figures.push(ms('plan: same, 10 % changed', `wall (median of ${RUNS})`, changed.wallMs, 1200, LATENCY_MS));
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return figures;
  },
};

export const planLarge: Scenario = {
  name: 'plan (10,000 agents)',
  async run(): Promise<Figure[]> {
    const size: ProjectSize = { agents: 10_000, connections: 50, providers: 10, agentsPerFile: 50 };
    const dir = writeProject(size);
    try {
      return await withControlPlane(async (env, proxy) => {
        await proxy.setLatency(0); // seeding is not what is measured
        expectSuccess(await runCliTimed(['apply', dir, '--auto-approve', '--parallelism', '32'], env), 'seeding 10,000 agents');
        await proxy.setLatency(LATENCY_MS);
        const plan = await runCliMedian(['plan', dir, '--detailed-exitcode'], env, RUNS);
        const name = 'plan: 10,000 agents, no changes';
        return [
          ms(name, `wall (median of ${RUNS})`, plan.wallMs, 4000, LATENCY_MS),
          { scenario: name, metric: 'peak RSS', value: round(plan.peakRssMb ?? Number.NaN), unit: 'MB', budget: 500, lowerBound: null },
        ];
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export const upsertThroughput: Scenario = {
  name: 'local control plane throughput',
  async run(): Promise<Figure[]> {
    // Both durability settings, so the cost of an fsync per commit stays visible.
    const figures: Figure[] = [];
    for (const durability of ['full', 'normal'] as const) {
      const dataDir = mkdtempSync(join(tmpdir(), 'agentform-bench-data-'));
      const local = await startLocalControlPlane({ dataDir, environments: ['bench'], durability });
      const clients = Array.from(
        { length: 16 },
        () => new ControlApiClient({ baseUrl: local.url, credential: { kind: 'key', token: local.tokens.bench as string } }),
      );
      const perClient = 150;
      try {
        const started = performance.now();
        await Promise.all(
          clients.map(async (client, c) => {
            for (let i = 0; i < perClient; i++) {
              await client.call('agents.upsert', {
                slug: `agent-${c}-${i % 10}`,
                definition: { name: `a${c}`, model: { provider: 'p', model: 'm' }, system: `version ${i}`, tools: [], policies: {}, limits: {} },
              });
            }
          }),
        );
        const seconds = (performance.now() - started) / 1000;
        figures.push({
          scenario: `local control plane: agents.upsert, 16 concurrent clients, no latency, durability ${durability}`,
          metric: 'throughput',
          value: round((clients.length * perClient) / seconds),
          unit: 'requests/s',
          budget: null,
          lowerBound: null,
        });
      } finally {
        await Promise.all(clients.map((client) => client.close()));
        await local.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
    return figures;
  },
};
