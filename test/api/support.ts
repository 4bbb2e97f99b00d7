// Shared setup for client tests: a client against a recording server with fast retries.
import { ControlApiClient, type ClientOptions } from '../../src/api/client.js';
import type { RequestEvent } from '../../src/api/client.js';

export const TOKEN = 'svc_dev_clientTestSecret42';

export interface TestClient {
  client: ControlApiClient;
  attempts: RequestEvent[];
  sleeps: number[];
  lines: string[];
}

/** Fast retries (1–5 ms), attempts and sleeps recorded, debug lines collected. */
export function testClient(baseUrl: string, options: Partial<ClientOptions> = {}): TestClient {
  const attempts: RequestEvent[] = [];
  const sleeps: number[] = [];
  const lines: string[] = [];
  const client = new ControlApiClient({
    baseUrl,
    credential: { kind: 'key', token: TOKEN },
    onRequest: (event) => attempts.push(event),
    debug: (line) => lines.push(line),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
    retry: { baseDelayMs: 1, maxDelayMs: 5, ...options.retry },
  });
  return { client, attempts, sleeps, lines };
}

/** The rejection of a promise, for assertions on its fields. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}
