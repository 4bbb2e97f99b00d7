// The connection cap of the local control plane (issue 45, item 7): connections past
// `maxConnections` are answered 503 with retry-after, which the CLI's client retries, so many
// requests at once through more connections than the cap all succeed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlApiClient, type RequestEvent } from '../../src/api/client.js';
import { startServer } from './helpers.js';

describe('a client opening more connections than the cap', () => {
  let plane: Awaited<ReturnType<typeof startServer>>;

  beforeAll(async () => {
    plane = await startServer({ maxConnections: 3 });
  });
  afterAll(async () => plane?.cleanup());

  it('gets every answer: the refused ones are retried after retry-after', async () => {
    const events: RequestEvent[] = [];
    const client = new ControlApiClient({
      baseUrl: plane.url,
      credential: { kind: 'key', token: plane.tokens.dev! },
      onRequest: (event) => events.push(event),
    });
    try {
      // Opened ahead, as an apply does: more than the cap, so some are refused.
      client.preconnect(12);
      const secrets = await Promise.all(Array.from({ length: 12 }, (_, i) => client.secretsCreate({ name: `CAP_${i}`, value: 'v' })));
      expect(secrets.map((secret) => secret.name).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `CAP_${i}`).sort());
    } finally {
      await client.close();
    }
    expect(events.some((event) => event.status === 503)).toBe(true);
    expect(new Set(events.map((event) => event.status))).toEqual(new Set([200, 503]));
  });
});
