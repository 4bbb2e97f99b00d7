// Fair share under load (issue 45, item 7): while 50 clients list 1,000 agents over and over, a
// small request (agents.get) is still answered promptly. The server runs in its own process (the
// built CLI), so the clients' work is not counted as the server's. Prints p50/p99 of the small
// request with and without the lists.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { call, MINIMAL_DEFINITION, tempDir } from '../server/helpers.js';

const AGENTS = 1_000;
const LISTERS = 50;
const PROBES = 200;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** POSTs `body` on its own keep-alive connection; the answer's bytes are read, not parsed. */
async function post(client: Client, rpc: string, body: unknown, token: string): Promise<number> {
  const answer = await client.request({
    method: 'POST',
    path: `/v1/${rpc.split('.').join('/')}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  for await (const _chunk of answer.body) {
    // drained
  }
  return answer.statusCode;
}

/** Latencies (ms) of `count` agents.get sent one after the other. */
async function probe(url: string, token: string, count: number): Promise<number[]> {
  const client = new Client(url);
  const ms: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      expect(await post(client, 'agents.get', { slug: `agent-${i % AGENTS}` }, token)).toBe(200);
      ms.push(performance.now() - started);
    }
  } finally {
    await client.close();
  }
  return ms;
}

describe('a small request while 50 clients list 1,000 agents', () => {
  const data = tempDir();
  let server: ServerProcess;
  let url: string;
  let token: string;

  beforeAll(async () => {
    server = startServerProcess(['--port', '0', '--data', data, '--durability', 'normal']);
    url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(await server.ready)![1]!;
    token = JSON.parse(readFileSync(join(data, 'credentials.json'), 'utf8')).environments.dev.token as string;
    const definition = (i: number) => ({
      ...MINIMAL_DEFINITION,
      name: `Agent ${i}`,
      system: `You are agent ${i}. ${'Answer briefly and cite the relevant policy. '.repeat(8)}`,
    });
    for (let start = 0; start < AGENTS; start += 25) {
      await Promise.all(
        Array.from({ length: 25 }, (_, k) => call(url, 'agents.upsert', { slug: `agent-${start + k}`, definition: definition(start + k) }, token)),
      );
    }
  }, 180_000);
  afterAll(async () => {
    await server?.stop('SIGTERM');
    rmSync(data, { recursive: true, force: true });
  });

  it('answers agents.get promptly: median under 100 ms, no starvation', async () => {
    const quiet = await probe(url, token, PROBES);
    let listing = true;
    let lists = 0;
    const listers = Array.from({ length: LISTERS }, async () => {
      const client = new Client(url);
      try {
        while (listing) {
          expect(await post(client, 'agents.list', {}, token)).toBe(200);
          lists += 1;
        }
      } finally {
        await client.close();
      }
    });
    // Let every lister have a list under way first.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const loaded = await probe(url, token, PROBES);
    listing = false;
    await Promise.all(listers);
    const shown = (ms: number[]) => `p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms`;
    console.log(`agents.get alone: ${shown(quiet)}; while ${LISTERS} clients list ${AGENTS} agents (${lists} lists): ${shown(loaded)}`);
    // Without the fair share the median alone is above this bound on an idle machine, with it far
    // below. The stress suite runs other files beside this one: the median tells the two apart,
    // the tail bound only guards against starvation.
    expect(percentile(loaded, 50)).toBeLessThan(100);
    expect(percentile(loaded, 99)).toBeLessThan(2_000);
  });
});
