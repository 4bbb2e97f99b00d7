// Against the local control plane through a loopback proxy the test controls: a concurrent remote
// edit between plan and write is detected (`changed since plan`), the agents that depend on that
// provider are skipped, independent ones are applied, and a re-run converges.
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { agentYaml, census, generateProject, startPlane, type Plane, type Project } from './harness.js';

/** Forwards every request to `target`; `before(rpc)` runs first and may act on the server. */
async function startProxy(target: string, before: (rpc: string) => Promise<void>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rpc = (req.url ?? '')
        .replace(/^\/v1\//, '')
        .split('/')
        .join('.');
      void (async () => {
        await before(rpc);
        const headers: Record<string, string> = {};
        for (const name of ['authorization', 'content-type', 'x-request-id', 'accept']) {
          const value = req.headers[name];
          if (typeof value === 'string') headers[name] = value;
        }
        const answer = await fetch(`${target}${req.url}`, { method: 'POST', headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
        const text = await answer.text();
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(text);
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('a concurrent edit and a failed change during apply', () => {
  let plane: Plane;
  let project: Project;
  beforeAll(async () => {
    plane = await startPlane();
    project = await generateProject({ agents: 12, providers: 2, connections: 1, secrets: 2 }, 'partial');
    expect((await runCli(['apply', project.dir, '--auto-approve'], { env: plane.cliEnv })).code).toBe(0);
  });
  afterAll(async () => plane.close());

  it('skips dependents of the failed change, applies independent ones, and a re-run converges', async () => {
    // The configuration changes prov0's baseUrl and every agent's maxTurns.
    const agents = project.names.agents;
    for (const [i, slug] of agents.entries()) {
      await writeFile(
        join(project.dir, 'agents', `${slug}.yaml`),
        agentYaml(slug, i, project.names.providers[i % 2]!, i % 5 === 4 ? agents[i - 1] : undefined, 77),
      );
    }
    const providers = join(project.dir, 'providers.yaml');
    await writeFile(
      providers,
      `kind: Provider\nname: prov0\nspec:\n  type: openai\n  baseUrl: http://127.0.0.1:9/v1\n  secret: \${env:DURABILITY_PROVIDER_SECRET:-s0}\n---\nkind: Provider\nname: prov1\nspec:\n  type: openai\n  secret: \${env:DURABILITY_PROVIDER_SECRET:-s1}\n`,
    );
    // The plan reads providers.list once; the apply's re-read is the next one. Just before it, someone else edits prov0.
    let providerLists = 0;
    const proxy = await startProxy(plane.url, async (rpc) => {
      if (rpc !== 'providers.list') return;
      providerLists += 1;
      if (providerLists === 2) {
        const prov0 = (await plane.client.providersList()).find((provider) => provider.name === 'prov0')!;
        // Moving baseUrl needs the secret again (a stored secret never follows a new endpoint).
        await plane.client.providersUpdate({ id: prov0.id, baseUrl: 'http://127.0.0.1:8/v1', secret: 'someone-elses-secret' });
      }
    });
    try {
      const env = { AGENTFORM_URL_DEV: proxy.url, AGENTFORM_TOKEN_DEV: plane.cliEnv.AGENTFORM_TOKEN_DEV };
      const run = await runCli(['apply', project.dir, '--auto-approve', '--json'], { env });
      expect(run.code, run.stderr).toBe(1);
      const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
        done: Array<{ address: string }>;
        failed: Array<{ address: string; code: string }>;
        skipped: Array<{ address: string; reason: string }>;
      };
      expect(summary.failed).toEqual([expect.objectContaining({ address: 'provider/prov0', code: 'changed_since_plan' })]);
      const skipped = summary.skipped.map((item) => item.address).sort();
      const done = summary.done.map((item) => item.address);
      // Agents on prov0 (even indexes) are skipped, and so is an agent delegating to one of them; the rest are applied.
      for (const [i, slug] of agents.entries()) {
        if (i % 2 === 0) expect(skipped).toContain(`agent/${slug}`);
        else if (!(i % 5 === 4 && (i - 1) % 2 === 0)) expect(done).toContain(`agent/${slug}`);
      }
      const versions = (await census(project, plane)).versions;
      for (const [i, slug] of agents.entries()) if (i % 2 === 0) expect(versions.get(slug)).toBe(1);
    } finally {
      proxy.server.close();
    }
    // The re-run (no more concurrent edits) overwrites the other edit with the configuration and converges.
    const rerun = await runCli(['apply', project.dir, '--auto-approve'], { env: plane.cliEnv });
    expect(rerun.code, rerun.stderr).toBe(0);
    const counted = await census(project, plane);
    expect(counted.duplicates).toEqual([]);
    for (const slug of agents) expect(counted.versions.get(slug)).toBe(2);
    expect((await plane.client.providersList()).find((provider) => provider.name === 'prov0')!.baseUrl).toBe('http://127.0.0.1:9/v1');
  }, 60_000);
});
