// plan --markdown prints the whole pull-request comment (issue 48), end to end: the real CLI against
// a local control plane on 127.0.0.1. One environment (-e) and every environment (--all-envs, each
// read with its own AGENTFORM_TOKEN_<ENV>), checked against goldens under test/fixtures/comment/
// (UPDATE_GOLDEN=1 rewrites them); the plane's URL is normalized.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlApiClient } from '../../src/api/client.js';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { REPO, runCli } from '../helpers/cli.js';

const GOLDEN = join(REPO, 'test', 'fixtures', 'comment');

const ROOT = `version: 1
environments:
  staging:
    url: local
  production:
    url: local
    changeWindows:
      - name: year-end
        reason: holiday freeze
        from: "2026-12-20T00:00:00+01:00"
        until: "2027-01-04T08:00:00+01:00"
`;
const PROVIDER = 'kind: Provider\nname: openai\nspec:\n  type: openai\n  secret: ${env:OPENAI_API_KEY:-sk-test-provider}\n';
const AGENT =
  'kind: Agent\nname: support\nspec:\n  model: {provider: openai, model: gpt-4o-mini}\n  system: "You are helpful.\\nAnswer briefly."\n  tools: []\n  policies: {}\n  limits: {maxTurns: 5}\n';

let plane: LocalControlPlane;
let dataDir: string;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'agentform-comment-plane-'));
  plane = await startLocalControlPlane({ dataDir, environments: ['staging', 'production'], bakeMs: 10 });
  // Made by hand in production: --prune plans its destroy, and the comment warns first.
  const production = new ControlApiClient({ baseUrl: plane.url, credential: { kind: 'key', token: plane.tokens.production as string } });
  await production.providersCreate({ name: 'hand-made', type: 'openai' });
  await production.close();
  dir = mkdtempSync(join(tmpdir(), 'agentform-comment-'));
  await writeFile(join(dir, 'agentform.yaml'), ROOT);
  await writeFile(join(dir, 'openai.yaml'), PROVIDER);
  await writeFile(join(dir, 'support.yaml'), AGENT);
  await mkdir(join(dir, 'tests'));
  await writeFile(join(dir, 'tests', 'support.test.yaml'), 'tests:\n  - agent: support\n    cannot: crm.delete_customer\n');
  env = {
    AGENTFORM_URL_STAGING: plane.url,
    AGENTFORM_TOKEN_STAGING: plane.tokens.staging as string,
    AGENTFORM_URL_PRODUCTION: plane.url,
    AGENTFORM_TOKEN_PRODUCTION: plane.tokens.production as string,
    AGENTFORM_NOW: '2026-12-24T10:00:00+01:00',
  };
}, 60_000);

afterAll(async () => {
  await plane?.close();
  for (const path of [dataDir, dir]) if (path) rmSync(path, { recursive: true, force: true });
});

function expectGolden(name: string, output: string): void {
  const actual = output.replaceAll(plane.url, 'http://127.0.0.1:PORT');
  const file = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, actual);
  expect(existsSync(file), `${name} is missing: run with UPDATE_GOLDEN=1`).toBe(true);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

describe('plan --markdown: the pull-request comment', () => {
  it('one environment: its marker, the destroy banner, the change window, the plan, the tests', async () => {
    const plan = await runCli(['plan', '.', '-e', 'production', '--prune', '--markdown'], { env, cwd: dir });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.startsWith('<!-- agentform-plan:production -->\n')).toBe(true);
    expectGolden('production.md', plan.stdout);
  });

  it('every environment: one comment, one marker, a table, then each environment', async () => {
    const plan = await runCli(['plan', '.', '--all-envs', '--prune', '--markdown', '--detailed-exitcode'], { env, cwd: dir });
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout.match(/<!-- agentform-plan/g)).toEqual(['<!-- agentform-plan']);
    expectGolden('all-environments.md', plan.stdout);
  });

  it('every environment, one without its key: the others are in the comment, the failure too, exit 1', async () => {
    const plan = await runCli(['plan', '.', '--all-envs', '--markdown'], { env: { ...env, AGENTFORM_TOKEN_PRODUCTION: '' }, cwd: dir });
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain('| `production` | - | - | - | - | - | ❌ error |');
    expect(plan.stdout).toContain('### agentform plan: `staging`');
    expect(plan.stdout).toContain('> ❌ **Could not plan:**');
    // The reason: on stderr (stdout holds only the comment) and in the comment, in a code block.
    expect(plan.stderr).toContain('agentform: production: could not plan');
    expect(plan.stderr).toContain('Error: no credential for environment production');
    expect(plan.stdout).toContain('> ❌ **Could not plan:**\n\n```\nError: no credential for environment production\n');
  });

  it('--all-envs --json: an environment that fails says why on stderr, as JSON', async () => {
    const plan = await runCli(['plan', '.', '--all-envs', '--json'], { env: { ...env, AGENTFORM_TOKEN_PRODUCTION: '' }, cwd: dir });
    expect(plan.code).toBe(1);
    const first = JSON.parse(plan.stderr.split('\n')[0] ?? '') as { error: { message: string } };
    expect(first.error.message).toBe('no credential for environment production');
  });

  it('every environment saves one plan each with --out NAME-{env}, and its comment is still one', async () => {
    const plan = await runCli(['plan', '.', '--all-envs', '--markdown', '--out', 'plan-{env}.json'], { env, cwd: dir });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.startsWith('<!-- agentform-plan -->\n')).toBe(true);
    for (const environment of ['staging', 'production']) {
      expect((JSON.parse(readFileSync(join(dir, `plan-${environment}.json`), 'utf8')) as { environment: string }).environment).toBe(environment);
    }
    const one = await runCli(['plan', '.', '-e', 'staging', '--out', 'one-{env}.json'], { env, cwd: dir });
    expect(one.code, one.stderr).toBe(0);
    expect((JSON.parse(readFileSync(join(dir, 'one-staging.json'), 'utf8')) as { environment: string }).environment).toBe('staging');
    const refused = await runCli(['plan', '.', '--all-envs', '--out', 'plan.json'], { env, cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("put {env} in the --out file name (--out 'plan-{env}.json')");
  });

  it('--all-envs takes no value: a project directory after it is the directory', async () => {
    const plan = await runCli(['plan', '--all-envs', dir, '--markdown'], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.startsWith('<!-- agentform-plan -->\n')).toBe(true);
  });

  it('--envs NAMES plans only the environments named, in that order', async () => {
    const plan = await runCli(['plan', '.', '--envs', 'production,staging', '--markdown'], { env, cwd: dir });
    expect(plan.code, plan.stderr).toBe(0);
    expect([...plan.stdout.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1])).toEqual(['production', 'staging']);
    const only = await runCli(['plan', '.', '--envs', 'staging', '--markdown'], { env: { ...env, AGENTFORM_TOKEN_PRODUCTION: '' }, cwd: dir });
    expect(only.code, only.stderr).toBe(0);
    expect(only.stdout).not.toContain('`production`');
    const unknown = await runCli(['plan', '.', '--envs', 'staging,dev'], { env, cwd: dir });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--envs staging,dev: no environment dev (declared: staging, production)');
  });
});
