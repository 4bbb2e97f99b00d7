// plan --markdown --markdown-full FILE (issue 48): the comment printed cut to fit, the whole comment
// uncut in FILE, which the cut comment names (a CI artifact) when no link is given. The real CLI
// against a local control plane on 127.0.0.1; the plan creates enough agents to be cut.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_BUDGET } from '../../src/render/comment-cut.js';
import { runCli } from '../helpers/cli.js';
import { startScratchPlane, type ScratchPlane } from '../helpers/local-api.js';

/** Enough agents with long prompts that one environment's comment is well over the budget. */
const AGENTS = 150;
const ROOT = 'version: 1\nenvironments:\n  staging:\n    url: local\n  production:\n    url: local\n';
const PROVIDER = 'kind: Provider\nname: openai\nspec:\n  type: openai\n  secret: ${env:OPENAI_API_KEY:-sk-test-provider}\n';
const agent = (name: string) =>
  `kind: Agent\nname: ${name}\nspec:\n  model: {provider: openai, model: gpt-4o-mini}\n  system: "${Array.from({ length: 12 }, (_, line) => `Line ${line}: answer the customer in full.`).join('\\n')}"\n  tools: []\n  policies: {}\n  limits: {maxTurns: 5}\n`;

const POINTER = '> ✂️ **The plan is longer than a comment allows and was cut here.**';

let plane: ScratchPlane;
let dir: string;

beforeAll(async () => {
  plane = await startScratchPlane(['staging', 'production']);
  dir = await mkdtemp(join(tmpdir(), 'agentform-markdown-full-'));
  await writeFile(join(dir, 'agentform.yaml'), ROOT);
  await writeFile(join(dir, 'openai.yaml'), PROVIDER);
  for (let index = 0; index < AGENTS; index++) await writeFile(join(dir, `agent-${index}.yaml`), agent(`agent-${String(index).padStart(3, '0')}`));
}, 60_000);

afterAll(async () => {
  await plane?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const plan = (args: string[], env: NodeJS.ProcessEnv = plane.env) => runCli(['plan', '.', ...args], { env, cwd: dir });

/** The whole comment as --markdown-full wrote it: uncut, no pointer, every agent. */
function expectWhole(file: string, marker: string): string {
  const whole = readFileSync(join(dir, file), 'utf8');
  expect(whole.startsWith(`${marker}\n`)).toBe(true);
  expect(whole.length).toBeGreaterThan(COMMENT_BUDGET);
  expect(whole).not.toContain('✂️');
  expect(whole).toContain(`agent/agent-${String(AGENTS - 1).padStart(3, '0')}`);
  return whole;
}

describe('plan --markdown --markdown-full FILE', () => {
  it('one environment: prints the comment cut, pointing at FILE, and writes it whole to FILE', async () => {
    const run = await plan(['-e', 'staging', '--markdown', '--markdown-full', 'full.md']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.length).toBeLessThanOrEqual(COMMENT_BUDGET + 1);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(`${POINTER} The full plan is in the CI job's artifact \`full.md\`.`);
    const whole = expectWhole('full.md', '<!-- agentform-plan:staging -->');
    // The same comment: the printed one is the whole one's head, up to where it was cut (the last
    // lines: the fence and <details> closed, the pointer).
    const kept = run.stdout.split('\n').slice(0, -6).join('\n');
    expect(kept.length).toBeGreaterThan(COMMENT_BUDGET - 2_000);
    expect(whole.startsWith(kept)).toBe(true);
  });

  it('every environment: each keeps its share of the printed comment; a link wins over FILE', async () => {
    const run = await plan(['--all-envs', '--markdown', '--markdown-full', 'full-all.md']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.length).toBeLessThanOrEqual(COMMENT_BUDGET + 1);
    for (const environment of ['staging', 'production']) expect(run.stdout).toContain(`### agentform plan: \`${environment}\``);
    expect(run.stdout.trimEnd().endsWith(`${POINTER} The full plan is in the CI job's artifact \`full-all.md\`.`)).toBe(true);
    const whole = expectWhole('full-all.md', '<!-- agentform-plan -->');
    expect(whole).toContain('### agentform plan: `production`');

    const linked = await plan([
      '--envs',
      'staging,production',
      '--markdown',
      '--markdown-full',
      'full-all.md',
      '--markdown-link',
      'https://ci.example.test/artifacts/full-all.md',
    ]);
    expect(linked.code, linked.stderr).toBe(0);
    expect(linked.stdout.trimEnd().endsWith(`${POINTER} The full plan: https://ci.example.test/artifacts/full-all.md`)).toBe(true);
  });

  it.each([
    ['one environment', ['-e', 'staging']],
    ['every environment', ['--all-envs']],
    ['with --json, which wins over --markdown', ['-e', 'staging', '--markdown', '--json']],
  ])('is refused without --markdown (%s), writing nothing', async (_, args) => {
    const run = await plan([...args, '--markdown-full', 'refused.md']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--markdown-full writes the whole pull-request comment: it needs --markdown');
    expect(run.stdout).toBe('');
    expect(existsSync(join(dir, 'refused.md'))).toBe(false);
  });

  // `--markdown-full "$UNSET"` in a CI script: refused, rather than a cut note naming no file.
  it.each([[''], ['  ']])('is refused with an empty file name (%j)', async (name) => {
    const run = await plan(['-e', 'staging', '--markdown', '--markdown-full', name]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--markdown-full needs a file name');
    expect(run.stdout).toBe('');
  });

  it('writes nothing when the environment could not be planned', async () => {
    const run = await plan(['-e', 'staging', '--markdown', '--markdown-full', 'failed.md'], { ...plane.env, AGENTFORM_TOKEN_STAGING: '' });
    expect(run.code).toBe(1);
    expect(existsSync(join(dir, 'failed.md'))).toBe(false);
  });
});
