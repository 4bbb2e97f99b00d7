// Load: 8 agentform processes apply 8 projects (one environment each) to one local control plane at
// once, then 2,400 requests from 16 concurrent clients; the only errors are the injected 429s, and
// every write is there afterwards. Prints throughput and p99 latency.
import { describe, expect, it } from 'vitest';
import { ControlApiClient, type RequestEvent } from '../../src/api/client.js';
import { runCli } from '../helpers/cli.js';
import { census, generateProject, startPlane } from './harness.js';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const ENVS = Array.from({ length: 8 }, (_, i) => `load${i}`);

describe('load on one local control plane', () => {
  it('8 concurrent applies and 2,400 loopback requests: nothing lost, only intended throttling', async () => {
    const plane = await startPlane({ env: 'load0', environments: ENVS, faults: { throttleRate: 0.02, seed: 77 } });
    try {
      const projects = await Promise.all(ENVS.map((env) => generateProject({ agents: 30, providers: 2, connections: 1, secrets: 3, env }, env)));
      const started = performance.now();
      const runs = await Promise.all(
        projects.map((project, i) => {
          const upper = ENVS[i]!.toUpperCase();
          return runCli(['apply', project.dir, '--auto-approve', '--parallelism', '8'], {
            env: { [`AGENTFORM_URL_${upper}`]: plane.url, [`AGENTFORM_TOKEN_${upper}`]: plane.tokens[ENVS[i]!]! },
          });
        }),
      );
      const applySeconds = (performance.now() - started) / 1000;
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
      for (const [i, project] of projects.entries()) {
        const client = new ControlApiClient({
          baseUrl: plane.url,
          credential: { kind: 'key', token: plane.tokens[ENVS[i]!]! },
          retry: { maxAttempts: 30, baseDelayMs: 5 },
        });
        const counted = await census(project, { ...plane, client });
        await client.close();
        expect(counted.duplicates).toEqual([]);
        expect(counted.missing).toEqual([]);
        for (const slug of project.names.agents) expect(counted.versions.get(slug)).toBe(1);
      }

      // Loopback load: 16 clients, each 150 requests (one write in three), retries allowed only for 429s.
      const events: RequestEvent[] = [];
      const CLIENTS = 16;
      const PER_CLIENT = 150;
      const loadStarted = performance.now();
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, c) => {
          const env = ENVS[c % ENVS.length]!;
          const client = new ControlApiClient({
            baseUrl: plane.url,
            credential: { kind: 'key', token: plane.tokens[env]! },
            retry: { maxAttempts: 10, baseDelayMs: 1 },
            onRequest: (event) => events.push(event),
          });
          for (let i = 0; i < PER_CLIENT; i++) {
            if (i % 3 === 0) await client.secretsCreate({ name: `load-c${c}-${i}`, value: 'v' });
            else if (i % 3 === 1) await client.agentsList();
            else await client.providersList();
          }
          await client.close();
        }),
      );
      const loadSeconds = (performance.now() - loadStarted) / 1000;
      const statuses = new Set(events.map((event) => event.status));
      expect([...statuses].filter((status) => status !== 200 && status !== 429)).toEqual([]);
      expect(events.length).toBeGreaterThanOrEqual(CLIENTS * PER_CLIENT);
      for (const env of ENVS) {
        const client = new ControlApiClient({
          baseUrl: plane.url,
          credential: { kind: 'key', token: plane.tokens[env]! },
          retry: { maxAttempts: 30, baseDelayMs: 5 },
        });
        const names = (await client.secretsList()).map((secret) => secret.name).filter((name) => name.startsWith('load-c'));
        await client.close();
        const expected = Array.from({ length: CLIENTS }, (_, c) => c)
          .filter((c) => ENVS[c % ENVS.length] === env)
          .flatMap((c) =>
            Array.from({ length: PER_CLIENT }, (_, i) => i)
              .filter((i) => i % 3 === 0)
              .map((i) => `load-c${c}-${i}`),
          );
        expect(names.sort()).toEqual(expected.sort());
      }
      const ms = events.map((event) => event.ms);
      const throttled = events.filter((event) => event.status === 429).length;
      console.log(
        `load: 8 concurrent applies of ${projects[0]!.shape.agents + 6} resources each in ${applySeconds.toFixed(1)} s; ` +
          `${events.length} loopback requests from ${CLIENTS} clients in ${loadSeconds.toFixed(2)} s = ${Math.round(events.length / loadSeconds)} req/s, ` +
          `p50 ${percentile(ms, 50)} ms, p99 ${percentile(ms, 99)} ms, ${throttled} throttled (429) and retried, 0 other errors, 0 writes lost`,
      );
    } finally {
      await plane.close();
    }
  });
});
