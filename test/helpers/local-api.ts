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

/** A local control plane of its own (environment `dev`, in a scratch directory) that a test reaches over HTTP, as a remote one. */
export interface ScratchPlane {
  client: ControlApiClient;
  /** AGENTFORM_URL_DEV and AGENTFORM_TOKEN_DEV: a project's `url: ${env:...}` points at it. */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export async function startScratchPlane(): Promise<ScratchPlane> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agentform-plane-'));
  const plane = await startLocalControlPlane({ dataDir, environments: ['dev'], bakeMs: 10 });
  const token = plane.tokens.dev as string;
  const client = new ControlApiClient({ baseUrl: plane.url, credential: { kind: 'key', token } });
  return {
    client,
    env: { AGENTFORM_URL_DEV: plane.url, AGENTFORM_TOKEN_DEV: token },
    close: async () => {
      await client.close();
      await plane.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
