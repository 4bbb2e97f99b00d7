// The local control plane under a burst of large lists: how long a small request waits while
// other clients read 1,000 agents (~1.2 MB) at once; and one list of 1,000 connections, whose
// auth is sealed (what a plan reads of them). The server runs in a child process
// (`agentform server`), so the benchmark's own client work (reading the large answers) does not
// share its event loop; the large answers are drained without parsing.
import { Agent, request } from 'undici';
import { operationPath, type Rpc } from '../../src/api/operations.js';
import { median, round, type Figure, type Scenario } from '../figures.js';
import { withServerProcess, type Server } from '../lib/server-process.js';

const AGENTS = 1_000;
const CONNECTIONS = 1_000;
const CONNECTION_LISTS = 9;
const LIST_CLIENTS = 4;
const SMALL_REQUESTS = 300;

/** Sends `count` requests, 16 at a time (as apply's default parallelism would). */
async function inBatchesOf16(count: number, send: (index: number) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < count; start += 16) {
    await Promise.all(Array.from({ length: Math.min(16, count - start) }, (_, k) => send(start + k)));
  }
}

const dispatcher = new Agent({ connections: 32 });

async function call(server: Server, rpc: Rpc, body: unknown, parse = true): Promise<unknown> {
  const response = await request(`${server.url}${operationPath(rpc)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    dispatcher,
  });
  if (response.statusCode >= 300) throw new Error(`${rpc}: HTTP ${response.statusCode} ${await response.body.text()}`);
  if (!parse) {
    await response.body.dump({ limit: Number.MAX_SAFE_INTEGER });
    return undefined;
  }
  return response.body.json();
}

function definition(i: number): object {
  return {
    name: `Agent ${i}`,
    description: `Benchmark agent number ${i}.`,
    model: { provider: 'anthropic', model: 'claude-sonnet' },
    system: `You are benchmark agent ${i}. ${'Answer briefly and cite the relevant policy. '.repeat(8)}`,
    tools: [{ type: 'builtin', name: 'current_time' }],
    policies: {},
    limits: {},
  };
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;

/** Latencies (ms) of SMALL_REQUESTS sequential agents.get calls, while `during` runs. */
async function smallRequestLatencies(server: Server): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < SMALL_REQUESTS; i++) {
    const started = performance.now();
    await call(server, 'agents.get', { slug: `agent-${i % AGENTS}` });
    latencies.push(performance.now() - started);
  }
  return latencies.sort((a, b) => a - b);
}

export const listBurst: Scenario = {
  name: 'local control plane: small request during a list burst',
  run: () =>
    withServerProcess('agentform-bench-burst-', async (server): Promise<Figure[]> => {
      await inBatchesOf16(AGENTS, (i) => call(server, 'agents.upsert', { slug: `agent-${i}`, definition: definition(i) }));
      const quiet = await smallRequestLatencies(server);
      let stop = false;
      let lists = 0;
      const listStarted = performance.now();
      const burst = Promise.all(
        Array.from({ length: LIST_CLIENTS }, async () => {
          while (!stop) {
            await call(server, 'agents.list', {}, false);
            lists += 1;
          }
        }),
      );
      const busy = await smallRequestLatencies(server);
      stop = true;
      await burst;
      const listMs = (performance.now() - listStarted) / Math.max(1, lists / LIST_CLIENTS);
      const scenario = `local control plane: agents.get while ${LIST_CLIENTS} clients list ${AGENTS} agents`;
      const figure = (metric: string, value: number): Figure => ({ scenario, metric, value: round(value), unit: 'ms', budget: null, lowerBound: null });
      return [
        figure('p50, quiet', percentile(quiet, 50)),
        figure('p99, quiet', percentile(quiet, 99)),
        figure('p50, during the burst', percentile(busy, 50)),
        figure('p99, during the burst', percentile(busy, 99)),
        figure('max, during the burst', busy[busy.length - 1]!),
        figure('one agents.list (per client, during the burst)', listMs),
      ];
    }),
};

export const connectionsList: Scenario = {
  name: 'local control plane: connections.list of 1,000 connections',
  run: () =>
    withServerProcess('agentform-bench-connections-', async (server): Promise<Figure[]> => {
      await inBatchesOf16(CONNECTIONS, (i) =>
        call(server, 'connections.create', { name: `connection-${i}`, url: 'http://127.0.0.1:9/mcp', auth: { type: 'bearer', token: `bench-token-${i}` } }),
      );
      const times: number[] = [];
      for (let i = 0; i < CONNECTION_LISTS; i++) {
        const started = performance.now();
        await call(server, 'connections.list', {}, false);
        times.push(performance.now() - started);
      }
      const scenario = `local control plane: connections.list of ${CONNECTIONS} connections (sealed auth)`;
      const figure = (metric: string, value: number): Figure => ({ scenario, metric, value: round(value), unit: 'ms', budget: null, lowerBound: null });
      return [figure('first list', times[0]!), figure(`median of ${CONNECTION_LISTS}`, median(times))];
    }),
};
