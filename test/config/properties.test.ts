// Property: whatever text the files hold, validate answers with problems (never a throw, never an
// internal error), and every problem it reports has a location.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { validateProject } from '../../src/config/index.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'valid');
const SEEDS = {
  root: readFileSync(join(FIXTURES, 'overlays-and-promotion', 'agentform.yaml'), 'utf8'),
  agents: readFileSync(join(FIXTURES, 'overlays-and-promotion', 'agents.yaml'), 'utf8'),
  providers: readFileSync(join(FIXTURES, 'minimal', 'providers.yaml'), 'utf8'),
  all: readFileSync(join(FIXTURES, 'multi-document-and-nesting', 'resources', 'all.yaml'), 'utf8'),
};
const work = mkdtempSync(join(tmpdir(), 'agentform-prop-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const fragment = fc.oneof(
  fc.constantFrom(
    '\t',
    ':',
    ': ',
    '- ',
    '{',
    '}',
    '[',
    ']',
    '---\n',
    '\n',
    '  ',
    '"',
    "'",
    '&a',
    '*a',
    '!!binary ',
    '${',
    '${env:X}',
    '${file:nope}',
    '${var:',
    '$${',
    'null',
    '~',
    '\u0000',
    '\uFFFD',
    'svc_dev_abcdefgh',
    'kind: Agent\n',
    'name: x\n',
    'spec:\n',
    'overlays:\n  nope: {}\n',
    '#',
  ),
  fc.string({ maxLength: 8 }),
);

type Mutation = { at: number; remove: number; insert: string };
const mutation = fc.record({ at: fc.nat(), remove: fc.nat({ max: 12 }), insert: fragment });

function mutate(text: string, mutations: Mutation[]): string {
  let out = text;
  for (const { at, remove, insert } of mutations) {
    const position = out.length === 0 ? 0 : at % (out.length + 1);
    out = out.slice(0, position) + insert + out.slice(position + remove);
  }
  return out;
}

let counter = 0;
async function check(files: Record<string, string>): Promise<void> {
  const dir = join(work, String(counter++));
  mkdirSync(dir);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  const problems = await validateProject(dir, { env: { PRESENT_VAR: 'x' } });
  for (const problem of problems) {
    expect(problem.message).not.toMatch(/internal error/);
    expect(problem.location, problem.message).toBeDefined();
    expect(problem.location!.line).toBeGreaterThanOrEqual(1);
    expect(problem.location!.col).toBeGreaterThanOrEqual(1);
    expect(`${problem.message} ${problem.jsonPath ?? ''}`).not.toContain('svc_dev_abcdefgh');
  }
  rmSync(dir, { recursive: true, force: true });
}

describe('validate never throws', () => {
  it('on mutated resource files', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(SEEDS.agents, SEEDS.providers, SEEDS.all),
        fc.array(mutation, { minLength: 1, maxLength: 6 }),
        async (seed, mutations) => {
          await check({ 'agentform.yaml': SEEDS.root, 'providers.yaml': SEEDS.providers, 'agents.yaml': mutate(seed, mutations) });
        },
      ),
      { numRuns: 200 },
    );
  }, 60_000);

  it('on a mutated root file', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 6 }), async (mutations) => {
        await check({ 'agentform.yaml': mutate(SEEDS.root, mutations), 'agents.yaml': SEEDS.agents, 'providers.yaml': SEEDS.providers });
      }),
      { numRuns: 100 },
    );
  }, 60_000);

  it('on random text and bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200, unit: 'binary' }), fc.uint8Array({ maxLength: 64 }), async (text, bytes) => {
        await check({ 'agentform.yaml': SEEDS.root, 'a.yaml': text, 'b.yaml': Buffer.from(bytes).toString('latin1') });
      }),
      { numRuns: 100 },
    );
  }, 60_000);
});
