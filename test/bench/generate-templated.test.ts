// The templated bench fleet must be the plain one in another form: the peer benchmark compares the
// two to price templates, which means nothing if the merged agents differ.
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import * as plain from '../../bench/lib/generate.js';
import * as templated from '../../bench/lib/generate-templated.js';
import { desiredStateFor, loadProject } from '../../src/config/index.js';

const SIZE = { agents: 30, connections: 4, providers: 3 };
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function specsOf(generator: Pick<typeof plain, 'writeProject' | 'changeAgents'>, changedShare?: number): Promise<unknown> {
  const dir = generator.writeProject(SIZE);
  dirs.push(dir);
  if (changedShare) expect(generator.changeAgents(dir, SIZE, changedShare)).toBe(3);
  const desired = desiredStateFor(await loadProject(dir), 'bench', {});
  return desired.resources.map((resource) => ({ kind: resource.kind, name: resource.name, spec: resource.spec }));
}

describe('the templated bench fleet', () => {
  it.each([
    ['as written', undefined],
    ['with 10 % changed', 0.1],
  ])('merges to the plain fleet, agent for agent, %s', async (_label, share) => {
    const expected = await specsOf(plain, share);
    expect(await specsOf(templated, share)).toEqual(expected);
  });
});
