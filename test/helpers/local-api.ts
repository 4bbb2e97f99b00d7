// The API of a project's local control plane (`url: local`), for changing the live state behind
// agentform's back in end-to-end tests. No CLI may have the plane open meanwhile.
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
