// Adoption (issue 47), end to end: the real CLI and git against a local control plane on 127.0.0.1,
// under the profile of the vitest project. A declared resource that exists live but that the base
// revision (`--base`) does not declare plans as `adopt`, is counted by --detailed-exitcode, and is
// applied (saved plan or not); one the base declares is an ordinary update.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ControlApiClient } from '../../src/api/client.js';
import { READ_RPC, calledRpcs, runCli } from '../helpers/cli.js';
import { startScratchPlane } from '../helpers/local-api.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function startPlane(): Promise<{ client: ControlApiClient; env: NodeJS.ProcessEnv }> {
  const plane = await startScratchPlane();
  cleanups.push(plane.close);
  return plane;
}

const ROOT = 'version: 1\nenvironments:\n  dev:\n    url: ${env:AGENTFORM_URL_DEV}\n    token: ${env:AGENTFORM_TOKEN_DEV}\n';
const PROVIDER = 'kind: Provider\nname: openai\nspec:\n  type: openai\n  secret: ${env:OPENAI_API_KEY:-sk-test-provider}\n';
const agent = (name: string, maxTurns = 5) =>
  `kind: Agent\nname: ${name}\nspec:\n  model: {provider: openai, model: gpt-4o-mini}\n  system: "You are helpful."\n  tools: []\n  policies: {}\n  limits: {maxTurns: ${maxTurns}}\n`;

/** A git repository holding the project in `sub` ('' for the root), with `files` committed on main. */
function repository(sub: string, files: Record<string, string>): { repo: string; dir: string } {
  const repo = mkdtempSync(join(tmpdir(), 'agentform-adopt-repo-'));
  cleanups.push(() => rmSync(repo, { recursive: true, force: true }));
  const dir = join(repo, sub);
  mkdirSync(dir, { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  write(dir, files);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'base');
  return { repo, dir };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8' });
}

function write(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}

const writes = (stderr: string) => calledRpcs(stderr).filter((rpc) => !READ_RPC.test(rpc));

/** The live agent `helper`, made by hand (by another project): not in this repository's history. */
async function handMadeHelper(env: NodeJS.ProcessEnv, maxTurns: number): Promise<void> {
  const other = mkdtempSync(join(tmpdir(), 'agentform-adopt-other-'));
  cleanups.push(() => rmSync(other, { recursive: true, force: true }));
  write(other, { 'agentform.yaml': ROOT, 'openai.yaml': PROVIDER, 'helper.yaml': agent('helper', maxTurns) });
  const made = await runCli(['apply', other, '--auto-approve'], { env });
  expect(made.code, made.stderr).toBe(0);
}

describe('plan --base', () => {
  it('plans a live resource the base does not declare as adopt, with its diff, and counts it', async () => {
    const plane = await startPlane();
    const { dir } = repository('', { 'agentform.yaml': ROOT, 'openai.yaml': PROVIDER, 'a.yaml': agent('a') });
    await handMadeHelper(plane.env, 9);
    write(dir, { 'helper.yaml': agent('helper', 7) });

    const plan = await runCli(['plan', dir, '--base', 'main', '--detailed-exitcode'], { env: plane.env });
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toMatch(/Base \(--base\): main \([0-9a-f]{12}\)/);
    expect(plan.stdout).toContain('~> agent/helper (adopt: take over the live resource)');
    expect(plan.stdout).toContain('limits.maxTurns: 9 → 7');
    expect(plan.stdout).toContain('1 to adopt');
    // The provider is live and declared at main: an ordinary no-op, not an adoption.
    expect(plan.stdout).not.toMatch(/~> provider\/openai/);

    const json = await runCli(['plan', dir, '--base', 'main', '--json'], { env: plane.env });
    const parsed = JSON.parse(json.stdout);
    expect(parsed.summary).toMatchObject({ add: 1, change: 0, adopt: 1 });
    expect(parsed.adoptionBase).toMatch(/^main \([0-9a-f]{12}\)$/);
    const helper = parsed.changes.find((change: { address: string }) => change.address === 'agent/helper');
    expect(helper).toMatchObject({ action: 'adopt', fields: [{ path: 'limits.maxTurns', before: 9, after: 7 }] });
    const schema = JSON.parse(readFileSync(new URL('../../schemas/plan.schema.json', import.meta.url), 'utf8'));
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(parsed), JSON.stringify(validate.errors)).toBe(true);

    // Without --base, the same change is the update it always was.
    const plain = await runCli(['plan', dir, '--detailed-exitcode'], { env: plane.env });
    expect(plain.stdout).toContain('~ agent/helper (update in place)');
  });

  it('counts an adoption that changes nothing, and apply writes nothing for it', async () => {
    const plane = await startPlane();
    const { dir } = repository('', { 'agentform.yaml': ROOT, 'openai.yaml': PROVIDER });
    await handMadeHelper(plane.env, 5);
    write(dir, { 'helper.yaml': agent('helper', 5) });

    const plan = await runCli(['plan', dir, '--base', 'main', '--detailed-exitcode'], { env: plane.env });
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toContain('~> agent/helper');

    const apply = await runCli(['apply', dir, '--base', 'main', '--auto-approve', '--debug'], { env: plane.env });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('agent/helper: Adopted');
    expect(apply.stdout).toContain('1 adopted');
    expect(writes(apply.stderr)).toEqual([]);
  });

  it('applies a saved plan with its adoptions, and refuses --base beside a saved plan', async () => {
    const plane = await startPlane();
    const { dir } = repository('', { 'agentform.yaml': ROOT, 'openai.yaml': PROVIDER });
    await handMadeHelper(plane.env, 9);
    write(dir, { 'helper.yaml': agent('helper', 4) });
    const out = join(dir, 'plan.json');
    const plan = await runCli(['plan', dir, '--base', 'main', '--out', out], { env: plane.env });
    expect(plan.code, plan.stderr).toBe(0);
    // An agentform that does not know adoptions refuses the file rather than skipping them.
    expect(JSON.parse(readFileSync(out, 'utf8')).format).toBe('agentform-saved-plan/2');

    const twice = await runCli(['apply', out, '--base', 'main'], { env: plane.env });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('a saved plan applies the adoptions it was made with');

    const apply = await runCli(['apply', out], { env: plane.env });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('1 adopted');
    const live = await plane.client.call('agents.get', { slug: 'helper' });
    expect(live.definition.limits?.maxTurns).toBe(4);
  });

  it('reads the base of a project in a subdirectory, and adopts everything of a project new at the base', async () => {
    const plane = await startPlane();
    const { repo, dir } = repository('teams/support', { 'agentform.yaml': ROOT, 'openai.yaml': PROVIDER });
    await handMadeHelper(plane.env, 5);
    write(dir, { 'helper.yaml': agent('helper', 5) });
    const plan = await runCli(['plan', dir, '--base', 'main', '--json'], { env: plane.env });
    expect(plan.code, plan.stderr).toBe(0);
    const actions = Object.fromEntries(JSON.parse(plan.stdout).changes.map((change: { address: string; action: string }) => [change.address, change.action]));
    expect(actions).toMatchObject({ 'provider/openai': 'no-op', 'agent/helper': 'adopt' });

    // A base commit before the project existed: the project takes over all it finds live.
    git(repo, 'checkout', '-q', '--orphan', 'empty');
    git(repo, 'rm', '-rq', '--cached', '.');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'empty');
    git(repo, 'checkout', '-q', '-f', 'main');
    write(dir, { 'helper.yaml': agent('helper', 5) });
    const fromEmpty = await runCli(['plan', dir, '--base', 'empty', '--json'], { env: plane.env });
    expect(fromEmpty.code, fromEmpty.stderr).toBe(0);
    const adopted = JSON.parse(fromEmpty.stdout).changes.filter((change: { action: string }) => change.action === 'adopt');
    expect(adopted.map((change: { address: string }) => change.address).sort()).toEqual(['agent/helper', 'provider/openai']);
    // git's own index and working tree are untouched by reading the base.
    expect(git(repo, 'status', '--porcelain')).toBe('?? teams/support/helper.yaml\n');
  });

  it('reads a base whose root file is agentform.yml, and one that reads ${file:} beyond its directory', async () => {
    const plane = await startPlane();
    const prompt =
      'kind: Agent\nname: a\nspec:\n  model: {provider: openai, model: gpt-4o-mini}\n  system: ${file:../../shared/a.md}\n  tools: []\n  policies: {}\n  limits: {maxTurns: 5}\n';
    const { repo, dir } = repository('teams/support', { 'agentform.yml': ROOT, 'openai.yaml': PROVIDER, 'a.yaml': prompt });
    mkdirSync(join(repo, 'shared'));
    write(join(repo, 'shared'), { 'a.md': 'You are helpful.\n' });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'shared prompt');
    const applied = await runCli(['apply', dir, '--auto-approve'], { env: plane.env });
    expect(applied.code, applied.stderr).toBe(0);
    // Nothing new since main: nothing adopted, no warning.
    const plan = await runCli(['plan', dir, '--base', 'main', '--detailed-exitcode'], { env: plane.env });
    expect(plan.code, `${plan.stdout}${plan.stderr}`).toBe(0);
    expect(`${plan.stdout}${plan.stderr}`).not.toContain('adoption not checked');
    expect(plan.stdout).not.toContain('(adopt');
  });

  it('leaves no parse cache pack behind for the base', async () => {
    const plane = await startPlane();
    const cache = mkdtempSync(join(tmpdir(), 'agentform-adopt-cache-'));
    cleanups.push(() => rmSync(cache, { recursive: true, force: true }));
    const { dir } = repository('', { 'agentform.yaml': ROOT, 'openai.yaml': PROVIDER });
    const env = { ...plane.env, AGENTFORM_PARSE_CACHE: cache };
    expect((await runCli(['plan', dir], { env })).code).toBe(0);
    const packs = readdirSync(cache).sort();
    expect((await runCli(['plan', dir, '--base', 'main'], { env })).code).toBe(0);
    expect(readdirSync(cache).sort()).toEqual(packs);
  });

  it('takes a directory as the base', async () => {
    const plane = await startPlane();
    const base = mkdtempSync(join(tmpdir(), 'agentform-adopt-base-'));
    cleanups.push(() => rmSync(base, { recursive: true, force: true }));
    write(base, { 'agentform.yaml': ROOT, 'openai.yaml': PROVIDER });
    const { dir } = repository('', { 'agentform.yaml': ROOT, 'openai.yaml': PROVIDER });
    await handMadeHelper(plane.env, 5);
    write(dir, { 'helper.yaml': agent('helper', 5) });
    const plan = await runCli(['plan', dir, '--base', base], { env: plane.env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`Base (--base): ${base}`);
    expect(plan.stdout).toContain('~> agent/helper');
  });

  it.each([
    ['a revision that does not exist', 'no-such-branch', '--base no-such-branch: no such revision or directory'],
    ['an empty value', '', '--base needs a git revision'],
    ['a directory that is not a project', '/', '--base /: the directory holds no agentform.yaml'],
  ])('refuses %s with a clear message', async (_case, base, message) => {
    const plane = await startPlane();
    const { dir } = repository('', { 'agentform.yaml': ROOT, 'openai.yaml': PROVIDER });
    const plan = await runCli(['plan', dir, '--base', base], { env: plane.env });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(message);
    expect(plan.stderr).not.toMatch(/\n\s+at /);
  });

  it('warns, and checks no adoption, when the base configuration does not load', async () => {
    const plane = await startPlane();
    const { repo, dir } = repository('', { 'agentform.yaml': 'version: 1\nenvironments: [broken\n' });
    write(dir, { 'agentform.yaml': ROOT, 'openai.yaml': PROVIDER });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'fixed');
    const plan = await runCli(['plan', dir, '--base', 'HEAD~1'], { env: plane.env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(`${plan.stdout}${plan.stderr}`).toMatch(
      /adoption not checked: the configuration at HEAD~1 \([0-9a-f]{12}\) does not load \(agentform\.yaml:\d+:\d+: /,
    );
  });
});
