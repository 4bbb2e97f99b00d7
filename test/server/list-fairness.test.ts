// A large agents.list must not hold up small requests (issue 16): the server reads, parses and
// writes a large list in slices, answering other requests in between. Ordered, not timed: with
// four lists of 1,000 agents in flight, small requests sent after them still finish first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer } from './helpers.js';

const AGENTS = 1_000;

describe('a small request during large lists', () => {
  let plane: Awaited<ReturnType<typeof startServer>>;
  let token: string;

  beforeAll(async () => {
    plane = await startServer({ durability: 'normal' });
    token = plane.tokens.dev!;
    const definition = (i: number) => ({
      name: `Agent ${i}`,
      model: { provider: 'anthropic', model: 'claude-sonnet' },
      system: `You are agent ${i}. ${'Answer briefly and cite the relevant policy. '.repeat(8)}`,
      tools: [{ type: 'builtin', name: 'current_time' }],
      policies: {},
      limits: {},
    });
    for (let start = 0; start < AGENTS; start += 25) {
      await Promise.all(
        Array.from({ length: 25 }, (_, k) => call(plane.url, 'agents.upsert', { slug: `agent-${start + k}`, definition: definition(start + k) }, token)),
      );
    }
  }, 120_000);
  afterAll(async () => plane?.cleanup());

  it('is answered before lists that started earlier', async () => {
    const finished: string[] = [];
    const lists = Array.from({ length: 4 }, (_, i) =>
      call(plane.url, 'agents.list', {}, token).then((answer) => {
        expect(answer.body).toHaveLength(AGENTS);
        finished.push(`list ${i}`);
      }),
    );
    // Let the lists reach the server first.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const small = Array.from({ length: 3 }, (_, i) =>
      call(plane.url, 'agents.get', { slug: `agent-${i}` }, token).then((answer) => {
        expect(answer.status).toBe(200);
        finished.push(`small ${i}`);
      }),
    );
    await Promise.all([...lists, ...small]);
    expect(finished.slice(0, 3).sort()).toEqual(['small 0', 'small 1', 'small 2']);
  });

  it('lists every agent once, in slug order', async () => {
    const slugs = (await call(plane.url, 'agents.list', {}, token)).body.map((agent: { slug: string }) => agent.slug);
    expect(slugs).toEqual([...slugs].sort());
    expect(new Set(slugs).size).toBe(AGENTS);
  });
});
