// The API of a project's local control plane (`url: local`), for changing the live state behind
// agentform's back in end-to-end tests. No CLI may have the plane open meanwhile.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlApiClient } from '../../src/api/client.js';
import { startLocalControlPlane } from '../../src/server/embedded.js';

/** Runs `use` with a client of the project's local plane for environment `dev`. */
export async function withLocalApi<T>(dir: string, use: (client: ControlApiClient) => Promise<T>): Promise<T> {
  const local = await startLocalControlPlane({ dataDir: join(dir, '.agentform', 'local'), environments: ['dev'] });
  const client = new ControlApiClient({ baseUrl: local.url, credential: { kind: 'key', token: local.tokens.dev as string } });
  try {
    return await use(client);
  } finally {
    await client.close();
    await local.close();
  }
}

/** A local control plane of its own (in a scratch directory) that a test reaches over HTTP, as a remote one. */
export interface ScratchPlane {
  /** A client of the first environment (`dev` by default). */
  client: ControlApiClient;
  /** A client of each environment. */
  clients: Readonly<Record<string, ControlApiClient>>;
  /** AGENTFORM_URL_<ENV> and AGENTFORM_TOKEN_<ENV> of each: a project's `url: ${env:...}` points at it. */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export async function startScratchPlane(environments: readonly string[] = ['dev']): Promise<ScratchPlane> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agentform-plane-'));
  const plane = await startLocalControlPlane({ dataDir, environments: [...environments], bakeMs: 10 });
  const clients: Record<string, ControlApiClient> = {};
  const env: NodeJS.ProcessEnv = {};
  for (const environment of environments) {
    const token = plane.tokens[environment] as string;
    clients[environment] = new ControlApiClient({ baseUrl: plane.url, credential: { kind: 'key', token } });
    const suffix = environment.toUpperCase().replace(/-/g, '_');
    env[`AGENTFORM_URL_${suffix}`] = plane.url;
    env[`AGENTFORM_TOKEN_${suffix}`] = token;
  }
  return {
    client: clients[environments[0] as string] as ControlApiClient,
    clients,
    env,
    close: async () => {
      for (const client of Object.values(clients)) await client.close();
      await plane.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
