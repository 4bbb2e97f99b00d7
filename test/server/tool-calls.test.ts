// POST /dev/tools/call against @modelcontextprotocol/server-everything: the decision under the
// agent's latest policy is reported always, and enforced only with enforceToolPolicy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEverythingServer, type EverythingServer } from '../helpers/mcp-everything.js';
import { call, MINIMAL_DEFINITION, post, startServer } from './helpers.js';

type Plane = Awaited<ReturnType<typeof startServer>>;

const POLICY = { toolCalls: { default: 'deny', byTool: { echo: 'allow', 'get-sum': 'ask' } } };

describe('/dev/tools/call', () => {
  let everything: EverythingServer;
  let reporting: Plane;
  let enforcing: Plane;

  async function prepare(plane: Plane): Promise<void> {
    const token = plane.tokens.dev!;
    expect((await call(plane.url, 'connections.create', { name: 'everything', url: everything.url, auth: { type: 'none' } }, token)).status).toBe(200);
    const definition = { ...MINIMAL_DEFINITION, tools: [{ type: 'connection', name: 'everything' }], policies: POLICY };
    expect((await call(plane.url, 'agents.upsert', { slug: 'support', definition }, token)).status).toBe(200);
  }
  const toolCall = (plane: Plane, tool: string, extra: object = {}) =>
    post(plane.url, '/dev/tools/call', { agent: 'support', connection: 'everything', tool, arguments: {}, ...extra }, plane.tokens.dev!);

  beforeAll(async () => {
    everything = await startEverythingServer();
    reporting = await startServer({ devEndpoints: true });
    enforcing = await startServer({ devEndpoints: true, enforceToolPolicy: true });
    await prepare(reporting);
    await prepare(enforcing);
  }, 60_000);
  afterAll(async () => {
    await everything?.stop();
    await reporting?.cleanup();
    await enforcing?.cleanup();
  });

  it.each([
    ['an allowed tool runs on both', 'echo', { message: 'hi' }, { status: 200, outcome: 'called' }, { status: 200, outcome: 'called' }],
    ['a denied tool runs only where the policy is not enforced', 'get-tiny-image', {}, { status: 200, outcome: 'called' }, { status: 403 }],
    [
      'a tool waiting for a decision is not run where enforced',
      'get-sum',
      { a: 1, b: 2 },
      { status: 200, outcome: 'called' },
      { status: 200, outcome: 'pending' },
    ],
  ] as const)('%s', async (_, tool, args, withoutEnforcement, withEnforcement) => {
    const reported = await toolCall(reporting, tool, { arguments: args });
    expect(reported.status, reported.text).toBe(withoutEnforcement.status);
    expect(reported.body).toMatchObject({ enforced: false, outcome: withoutEnforcement.outcome });
    const enforced = await toolCall(enforcing, tool, { arguments: args });
    expect(enforced.status, enforced.text).toBe(withEnforcement.status);
    if ('outcome' in withEnforcement) expect(enforced.body).toMatchObject({ enforced: true, outcome: withEnforcement.outcome });
    else expect(enforced.text).toContain(`everything.${tool} is denied by the tool policy of agent support`);
  });

  it('refuses a connection the agent does not use, enforced or not', async () => {
    for (const plane of [reporting, enforcing]) {
      const answer = await toolCall(plane, 'echo', { connection: 'other' });
      expect(answer.status).toBe(403);
      expect(answer.text).toContain('agent support does not use connection other');
    }
  });

  it('is a dev endpoint: off without devEndpoints', async () => {
    const plane = await startServer({ enforceToolPolicy: true });
    try {
      expect((await toolCall(plane, 'echo')).status).toBe(404);
    } finally {
      await plane.cleanup();
    }
  });
});
