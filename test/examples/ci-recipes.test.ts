// The CI recipes are exercised, not just shipped:
// - every GitHub Actions workflow passes the published workflow schema (action-validator, which
//   bundles SchemaStore's github-workflow schema; no network);
// - their shell steps run with bash, in workflow order, against examples/gitops on the local
//   control plane, with `agentform` on PATH and only the variables each job is given: the pull-request
//   jobs get no secret at all (the local plane brings its own key), apply gets the write-only values;
// - the pull-request comment script runs against a fake GitHub API: one comment for every
//   environment (agentform writes it whole, cut to fit: test/render/pr-comment.test.ts), updated in place;
// - apply uses the reviewed (saved) plan and refuses it once stale.
// - every run / script entry is a string (a plain YAML scalar holding `: ` is a mapping), and the
//   GitLab recipe is read by gitlab-ci-local, which lists its jobs and expands its templates.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ControlApiClient } from '../../src/api/client.js';
import { startLocalControlPlane } from '../../src/server/embedded.js';
import { CLI, REPO, cliEnv, copyExample } from '../helpers/cli.js';
import { fakeGitHub, runGithubScript } from '../helpers/fake-github.js';

const run = promisify(execFile);
const WORKFLOWS = join(REPO, 'examples', 'github-actions', '.github', 'workflows');
const FILES = ['agentform-plan.yml', 'agentform-apply.yml', 'agentform-drift.yml'];

interface Step {
  name?: string;
  run?: string;
  uses?: string;
  env?: Record<string, string>;
  with?: { script?: string };
}
interface Workflow {
  on: Record<string, unknown>;
  env?: Record<string, string>;
  jobs: Record<string, { steps: Step[]; environment?: string; needs?: string | string[]; strategy?: { matrix: { environment: string[] } } }>;
}

async function workflow(file: string): Promise<Workflow> {
  return parse(await readFile(join(WORKFLOWS, file), 'utf8')) as Workflow;
}

/** The `env:` of a step with GitHub expressions reduced for one matrix environment: secrets are not set. */
function stepEnv(step: Step, environment: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(step.env ?? {})) {
    if (value.includes('secrets.')) continue;
    out[key] = value.replace(/\$\{\{ matrix\.environment \}\}/g, environment);
  }
  return out;
}

/** `dir` as a pull request's checkout (made once): a base commit holding what `dir` holds now, and a merge commit on it. */
async function committed(dir: string): Promise<void> {
  const git = async (...args: string[]) => run('git', ['-c', 'user.name=agentform', '-c', 'user.email=agentform@example.com', ...args], { cwd: dir });
  if (existsSync(join(dir, '.git'))) return;
  await git('init', '--quiet');
  await git('add', '-A');
  await git('commit', '--quiet', '-m', 'base');
  await git('commit', '--quiet', '--allow-empty', '-m', 'merge');
}

describe('the GitHub Actions recipes', () => {
  let bin: string;
  let dir: string;

  /** Each test works on its own copy of the example, so none depends on another having run. */
  async function freshProject(): Promise<void> {
    dir = await copyExample('gitops');
  }

  beforeAll(async () => {
    // `agentform` on PATH, as the install step leaves it.
    bin = await mkdtemp(join(tmpdir(), 'agentform-bin-'));
    await writeFile(join(bin, 'agentform'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    await chmod(join(bin, 'agentform'), 0o755);
  });

  /** Runs a step's shell script like the runner does (bash -e), in the project, with only `env`. */
  async function runStep(script: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await run('bash', ['-eo', 'pipefail', '-c', script], {
        cwd: dir,
        env: cliEnv({ PATH: `${bin}:${process.env.PATH ?? ''}`, ...env }),
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  it.each(FILES)('%s passes the GitHub workflow schema', async (file) => {
    const validator = join(REPO, 'node_modules', '.bin', 'action-validator');
    const result = await run(validator, [join(WORKFLOWS, file)]).then(
      () => 0,
      (error: { code: number; stdout: string }) => `${error.code}: ${error.stdout}`,
    );
    expect(result).toBe(0);
  });

  it.each(FILES)('%s: every step is a mapping, and every run and github-script a string', async (file) => {
    const parsed = parse(await readFile(join(WORKFLOWS, file), 'utf8')) as { jobs: Record<string, { steps: unknown[] }> };
    const problems: string[] = [];
    for (const [name, job] of Object.entries(parsed.jobs)) {
      for (const [index, step] of job.steps.entries()) {
        if (step === null || typeof step !== 'object' || Array.isArray(step)) {
          problems.push(`${name}.steps[${index}]: ${JSON.stringify(step)}`);
          continue;
        }
        const { run: script, with: inputs } = step as { run?: unknown; with?: Record<string, unknown> };
        if (script !== undefined && typeof script !== 'string') problems.push(`${name}.steps[${index}].run: ${JSON.stringify(script)}`);
        if (inputs?.script !== undefined && typeof inputs.script !== 'string')
          problems.push(`${name}.steps[${index}].with.script: ${JSON.stringify(inputs.script)}`);
      }
    }
    expect(Object.keys(parsed.jobs).length, file).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('installs one pinned package, explicitly, and never runs npx', async () => {
    for (const file of FILES) {
      const text = await readFile(join(WORKFLOWS, file), 'utf8');
      expect(text).not.toMatch(/\bnpx\b/);
      const parsed = await workflow(file);
      expect(parsed.env?.AGENTFORM_PACKAGE, file).toMatch(/agentform-\d+\.\d+\.\d+\.tgz$|agentform@\d+\.\d+\.\d+$/);
      for (const job of Object.values(parsed.jobs)) {
        const installs = job.steps.filter((step) => step.run?.includes('npm install --global'));
        expect(installs, file).toHaveLength(1);
      }
    }
  });

  it('plans on every configuration change, with no secret but read-only keys', async () => {
    const plan = await workflow('agentform-plan.yml');
    const paths = (plan.on.pull_request as { paths: string[] }).paths;
    expect(paths).toEqual(expect.arrayContaining(['**/*.yaml', '**/prompts/**']));
    const text = await readFile(join(WORKFLOWS, 'agentform-plan.yml'), 'utf8');
    const secrets = [...text.matchAll(/secrets\.([A-Z_]+)/g)].map((match) => match[1]);
    expect(new Set(secrets)).toEqual(new Set(['AGENTFORM_READ_TOKEN_STAGING', 'AGENTFORM_READ_TOKEN_PRODUCTION']));
    // One job plans every environment, each with its own read-only key in its own variable.
    expect(text).toContain('AGENTFORM_TOKEN_STAGING: ${{ secrets.AGENTFORM_READ_TOKEN_STAGING }}');
    expect(text).toContain('AGENTFORM_TOKEN_PRODUCTION: ${{ secrets.AGENTFORM_READ_TOKEN_PRODUCTION }}');
  });

  /** The pull-request plan step, for staging, as the plan job runs it; returns its result. */
  async function planStaging(target: Record<string, string> = { AGENTFORM_URL_STAGING: 'local' }): Promise<{ code: number; stdout: string; stderr: string }> {
    const plan = await workflow('agentform-plan.yml');
    const planStep = plan.jobs.plan!.steps.find((step) => step.name?.startsWith('plan '))!;
    const output = join(dir, 'github-output');
    await writeFile(output, '');
    // The checkout: the project as copied is the base, the merge commit on it (--base HEAD^1).
    await committed(dir);
    // By default the environment's URL points at the local control plane, which brings its own key.
    // Staging only: the example's production pins a staging version an empty plane does not have.
    return runStep(planStep.run!.replace('--envs staging,production', '--envs staging'), { ...stepEnv(planStep, 'staging'), ...target, GITHUB_OUTPUT: output });
  }

  const WRITE_ONLY = { OPENAI_API_KEY: 'local-openai', ANTHROPIC_API_KEY: 'local-anthropic', CRM_SUPPORT_TOKEN: 'local-crm', NPM_TOKEN: 'local-npm' };

  it('pull request: validate and plan pass with no secret set, and one comment for every environment, updated in place', async () => {
    await freshProject();
    const plan = await workflow('agentform-plan.yml');
    const validate = plan.jobs.validate!.steps.find((step) => step.name === 'validate')!;
    const validated = await runStep(validate.run!, {});
    expect(validated.code, validated.stdout + validated.stderr).toBe(0);

    const check = plan.jobs.validate!.steps.find((step) => step.name === 'policy check')!;
    const checked = await runStep(check.run!, { GITHUB_ACTIONS: 'true' });
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);

    const planned = await planStaging();
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(await readFile(join(dir, 'github-output'), 'utf8')).toContain('code=2');
    expect(await readFile(join(dir, 'comment.md'), 'utf8')).toContain('<details>');
    expect(JSON.parse(await readFile(join(dir, 'plan-staging.json'), 'utf8'))).toMatchObject({ environment: 'staging' });

    const comment = plan.jobs.plan!.steps.find((step) => step.uses?.startsWith('actions/github-script'))!;
    const github = fakeGitHub();
    const runScript = async () => runGithubScript(comment.with!.script!, github, {}, dir);
    await runScript();
    await runScript();
    expect(github.comments).toHaveLength(1);
    const body = github.comments[0]!.body;
    expect(body).toMatch(/^<!-- agentform-plan -->\n## agentform plan: every environment\n/);
    expect(body).toContain('### agentform plan: `staging`');
    expect(body).toContain('| `staging` |');
    expect(body).not.toContain('`dev`');
    expect(github.updates).toBe(1);
    // A comment cut to fit points at the run, whose job summary holds every plan uncut.
    const planStep = plan.jobs.plan!.steps.find((step) => step.name?.startsWith('plan '))!;
    expect(planStep.env?.AGENTFORM_MARKDOWN_LINK).toContain('/actions/runs/${{ github.run_id }}');
  });

  it("pull request: the comment step posts only agentform's comment, over pages, never a planted one", async () => {
    await freshProject();
    const plan = await workflow('agentform-plan.yml');
    const comment = plan.jobs.plan!.steps.find((step) => step.uses?.startsWith('actions/github-script'))!;
    const github = fakeGitHub();
    const post = async (body: string) => {
      await writeFile(join(dir, 'comment.md'), body);
      return runGithubScript(comment.with!.script!, github, { CODE: '1' }, dir);
    };
    // A human's comment first: with no marker agentform printed nothing, and nothing is posted over it.
    github.comments.push({ id: 1, issue: 7, body: 'LGTM', user: { login: 'alice', type: 'User' } });
    await expect(post('')).rejects.toThrow('agentform wrote no comment (exit 1)');
    await expect(post('Error: agentform.yaml:3:1: bad\n')).rejects.toThrow('Error: agentform.yaml:3:1: bad');
    expect(github.comments.map((c) => c.body)).toEqual(['LGTM']);
    // The marker pasted by someone else is not the workflow's comment; the workflow's own is found past page one.
    github.comments.push({ id: 2, issue: 7, body: '<!-- agentform-plan -->\nplanted', user: { login: 'mallory', type: 'User' } });
    await post('<!-- agentform-plan -->\nfirst');
    for (let id = 4; id < 260; id += 1) github.comments.push({ id, issue: 7, body: 'chatter', user: { login: 'alice', type: 'User' } });
    github.comments.push({ id: 260, issue: 7, body: '<!-- agentform-plan -->\nplanted late', user: { login: 'mallory', type: 'User' } });
    // The workflow's comment moves to the end (past the first page of 100) to check every page is read.
    const mine = github.comments.splice(2, 1)[0]!;
    github.comments.push(mine);
    await post('<!-- agentform-plan -->\nsecond');
    expect(github.comments.filter((c) => c.user.type === 'Bot').map((c) => c.body)).toEqual(['<!-- agentform-plan -->\nsecond']);
    expect(github.comments.filter((c) => c.user.login === 'mallory').map((c) => c.body)).toEqual([
      '<!-- agentform-plan -->\nplanted',
      '<!-- agentform-plan -->\nplanted late',
    ]);
  });

  it.each([
    ['0', 0],
    ['2', 0],
    ['1', 1],
    ['137', 1],
    ['134', 1],
    ['', 1],
  ])('pull request: plan exit %s makes the check step exit %i', async (code, expected) => {
    const plan = await workflow('agentform-plan.yml');
    const check = plan.jobs.plan!.steps.find((step) => step.name === 'fail when an environment could not be planned')!;
    expect((await runStep(check.run!, { CODE: code })).code).toBe(expected);
  });

  it('pull request: an error-severity policy finding fails the policy check, annotated at its line', async () => {
    await freshProject();
    const agent = join(dir, 'agents', 'researcher.yaml');
    const text = await readFile(agent, 'utf8');
    // The example's custom rule: every agent has a description (an error in production). The
    // finding is at the agent's `spec:` key, not in its production overlay.
    await writeFile(agent, text.replace(/^ {2}description: .*\n/m, ''));
    const plan = await workflow('agentform-plan.yml');
    const check = plan.jobs.validate!.steps.find((step) => step.name === 'policy check')!;
    const checked = await runStep(check.run!, { GITHUB_ACTIONS: 'true' });
    expect(checked.code).toBe(1);
    expect(checked.stdout).toMatch(/^::error file=agents\/researcher\.yaml,line=4,col=1::\[agent-has-description\]/m);
    expect(checked.stdout).toMatch(/^::warning file=agents\/researcher\.yaml,line=4,col=1::\[agent-has-description\]/m);
  });

  it('pull request: a plan apply would refuse (a rule over the plan at error) is commented, then the job fails', async () => {
    await freshProject();
    // check has no plan, so the validate job passes; the plan job is where this error shows.
    const root = join(dir, 'agentform.yaml');
    const strict = 'policy:\n  plan: {maxChangedAgents: 1}\n  rules:\n    plan-changed-agents: {staging: error}\n';
    await writeFile(root, (await readFile(root, 'utf8')).replace('policy:\n  rules:\n', strict));
    const planned = await planStaging();
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    const code = /^code=(\d+)$/m.exec(await readFile(join(dir, 'github-output'), 'utf8'))?.[1];
    expect(code).toBe('1');
    expect(planned.stderr).toContain('agentform: the plan for staging has 1 policy error; apply would refuse it');

    const plan = await workflow('agentform-plan.yml');
    const comment = plan.jobs.plan!.steps.find((step) => step.uses?.startsWith('actions/github-script'))!;
    const github = fakeGitHub();
    await runGithubScript(comment.with!.script!, github, { CODE: code! }, dir);
    expect(github.comments).toHaveLength(1);
    expect(github.comments[0]!.body).toMatch(/^<!-- agentform-plan -->\n/);
    expect(github.comments[0]!.body).toContain('`plan-changed-agents`');
    const check = plan.jobs.plan!.steps.find((step) => step.name === 'fail when an environment could not be planned')!;
    expect((await runStep(check.run!, { CODE: code! })).code).toBe(1);
  });

  it('merge: applies the plan reviewed with the read-only key with the control key, staging before production; a stale plan is refused', async () => {
    await freshProject();
    // A control plane over HTTP with the two keys a repository's secrets hold for staging.
    const plane = await startLocalControlPlane({ dataDir: await mkdtemp(join(tmpdir(), 'agentform-recipes-plane-')), environments: ['staging'], bakeMs: 10 });
    onTestFinished(() => plane.close());
    const admin = new ControlApiClient({ baseUrl: plane.url, credential: { kind: 'key', token: plane.tokens.staging as string } });
    onTestFinished(() => admin.close());
    const readKey = (await admin.apiKeysCreate({ key: { name: 'ci-read', scopes: ['read'] } })).token;
    const controlKey = (await admin.apiKeysCreate({ key: { name: 'ci-control', scopes: ['read', 'control'] } })).token;
    const reviewed = await planStaging({ AGENTFORM_URL_STAGING: plane.url, AGENTFORM_TOKEN_STAGING: readKey });
    expect(reviewed.code, reviewed.stderr).toBe(0);
    const apply = await workflow('agentform-apply.yml');
    expect(apply.jobs.staging!.environment).toBe('staging');
    expect(apply.jobs.production!.environment).toBe('production');
    expect(apply.jobs.production!.needs).toBe('staging');
    const text = await readFile(join(WORKFLOWS, 'agentform-apply.yml'), 'utf8');
    const stagingJob = text.slice(text.indexOf('  staging:'), text.indexOf('  production:'));
    expect(stagingJob).not.toContain('PRODUCTION');

    const step = apply.jobs.staging!.steps.find((candidate) => candidate.name?.startsWith('apply the reviewed plan'))!;
    expect(step.run).toContain('plan-staging.json');
    const writeOnly = WRITE_ONLY;
    // Every write-only value the example reads is one the step passes.
    for (const name of Object.keys(writeOnly)) expect(Object.keys(step.env ?? {})).toContain(name);
    const withControlKey = { AGENTFORM_URL_STAGING: plane.url, AGENTFORM_TOKEN_STAGING: controlKey, ...writeOnly };
    const applied = await runStep(step.run!.replace(/ --wait$/, ''), withControlKey);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Apply complete!');
    const liveKeys = (await admin.apiKeysList()).filter((key) => !key.revokedAt).map((key) => key.name);
    expect(liveKeys).toEqual(expect.arrayContaining(['ci-read', 'ci-control']));

    // The same saved plan again: the remote state changed since it was made.
    const stale = await runStep(step.run!.replace(/ --wait$/, ''), withControlKey);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('the saved plan is stale');
  });

  it('nightly: the drift check is read-only, clean after an apply (exit 0) and 2 once the state drifts', async () => {
    await freshProject();
    expect((await runStep('agentform apply -e staging --auto-approve', { AGENTFORM_URL_STAGING: 'local', ...WRITE_ONLY })).code).toBe(0);
    const drift = await workflow('agentform-drift.yml');
    const step = drift.jobs.drift!.steps.find((candidate) => candidate.name?.startsWith('drift'))!;
    const text = await readFile(join(WORKFLOWS, 'agentform-drift.yml'), 'utf8');
    expect(text).not.toContain('CONTROL_TOKEN');
    const clean = await runStep(step.run!, { ...stepEnv(step, 'staging'), AGENTFORM_URL_STAGING: 'local' });
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    const prompt = join(dir, 'prompts', 'support.md');
    await writeFile(prompt, `${await readFile(prompt, 'utf8')}\nChanged in Git, not applied.\n`);
    const drifted = await runStep(step.run!, { ...stepEnv(step, 'staging'), AGENTFORM_URL_STAGING: 'local' });
    expect(drifted.code).toBe(2);
    // The tool surface is part of the nightly check (checked with a control key, as the local plane's).
    expect(step.run).toMatch(/^agentform drift -e "\$ENVIRONMENT" --check-tools$/);
    expect(clean.stdout).toContain('Tool surface:');
  });
});

/** A `!reference [job, key]` entry: GitLab splices that list in, so it stands for strings. */
class Reference {
  constructor(readonly path: unknown) {}
}

/** Parses a .gitlab-ci.yml keeping `!reference` entries apart from plain nested lists. */
function parseGitlab(source: string): Record<string, unknown> {
  return parse(source, {
    customTags: [{ tag: '!reference', collection: 'seq', resolve: (seq: { toJSON(): unknown }) => new Reference(seq.toJSON()) }],
  }) as Record<string, unknown>;
}

/** Top-level keys of a .gitlab-ci.yml that configure the pipeline rather than name a job or template. */
const GITLAB_GLOBAL_KEYS = new Set(['stages', 'variables', 'image', 'include', 'workflow', 'services', 'cache', 'before_script', 'after_script']);
const SCRIPT_KEYS = ['before_script', 'script', 'after_script'] as const;

/**
 * Every entry of before_script/script/after_script, in every job, hidden template (`.name`) and
 * `default:`, that is neither a string nor a `!reference`, as `job.key[index]: value`. A plain
 * scalar holding `: ` parses as a mapping, which GitLab rejects ("script contains non string value").
 */
function nonStringScripts(config: Record<string, unknown>): { checked: string[]; problems: string[] } {
  const checked: string[] = [];
  const problems: string[] = [];
  for (const [name, job] of Object.entries(config)) {
    if (GITLAB_GLOBAL_KEYS.has(name) || job === null || typeof job !== 'object' || Array.isArray(job)) continue;
    checked.push(name);
    for (const key of SCRIPT_KEYS) {
      const entries = (job as Record<string, unknown>)[key];
      if (entries === undefined) continue;
      // GitLab also takes a single string for a script.
      if (typeof entries === 'string') continue;
      if (!Array.isArray(entries)) {
        problems.push(`${name}.${key}: ${JSON.stringify(entries)}`);
        continue;
      }
      entries.forEach((entry: unknown, index) => {
        if (typeof entry !== 'string' && !(entry instanceof Reference)) problems.push(`${name}.${key}[${index}]: ${JSON.stringify(entry)}`);
      });
    }
  }
  return { checked, problems };
}

/** What `gitlab-ci-local` says about the recipe, run in a scratch Git repository holding only it. */
async function gitlabCiLocal(recipe: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'agentform-gitlab-ci-local-'));
  const home = join(dir, 'home');
  const repo = join(dir, 'repo');
  await mkdir(home);
  await mkdir(repo);
  await writeFile(join(repo, '.gitlab-ci.yml'), recipe);
  // gitlab-ci-local reads the commit, branch and author from Git: a repository with one commit.
  const git = (...gitArgs: string[]) =>
    run('git', ['-c', 'user.name=agentform', '-c', 'user.email=agentform@example.com', ...gitArgs], {
      cwd: repo,
      env: { PATH: process.env.PATH ?? '', HOME: home },
    });
  await git('init', '--quiet');
  await git('add', '.gitlab-ci.yml');
  await git('commit', '--quiet', '-m', 'recipe');
  try {
    const { stdout, stderr } = await run(join(REPO, 'node_modules', '.bin', 'gitlab-ci-local'), args, {
      cwd: repo,
      env: { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1' },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const GITLAB_JOBS = ['validate', 'plan', 'apply-staging', 'apply-production', 'drift: [staging]', 'drift: [production]'];

describe('the GitLab CI recipe', () => {
  let text: string;
  let config: Record<
    string,
    {
      script?: string[];
      rules?: Array<{ if: string; when?: string }>;
      needs?: string[];
      environment?: string;
      resource_group?: string;
      before_script?: unknown[];
      artifacts?: { paths: string[]; when?: string };
    }
  >;

  beforeAll(async () => {
    text = await readFile(join(REPO, 'examples', 'gitlab-ci', '.gitlab-ci.yml'), 'utf8');
    // `!reference` is GitLab's own tag.
    config = parse(text, { customTags: [{ tag: '!reference', collection: 'seq', resolve: (value: unknown) => value }] }) as typeof config;
  });

  it("passes GitLab's own .gitlab-ci.yml schema (as gitlab-ci-local ships it), checked with ajv", async () => {
    const { schema } = await import('gitlab-ci-local/src/schema/schema.js');
    const { Ajv } = await import('ajv');
    const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, strict: false, validateFormats: false });
    const validate = ajv.compile(schema);
    expect(validate(config), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    // The schema does reject a broken job: the check can fail.
    expect(validate({ plan: { scriptz: ['agentform plan'] } })).toBe(false);
  });

  it('gives every job and hidden template only strings (or !reference) in before_script, script and after_script', () => {
    const { checked, problems } = nonStringScripts(parseGitlab(text));
    expect(checked).toEqual(expect.arrayContaining(['.agentform', '.apply', 'validate', 'plan', 'apply-staging', 'apply-production', 'drift']));
    expect(problems).toEqual([]);
    // The check does see the mistake it is there for: `PRIVATE-TOKEN: …` in a plain scalar.
    const broken = nonStringScripts(parseGitlab('.apply:\n  script:\n    - curl --header "PRIVATE-TOKEN: $TOKEN" "$URL"\n'));
    expect(broken.problems).toEqual(['.apply.script[0]: {"curl --header \\"PRIVATE-TOKEN":"$TOKEN\\" \\"$URL\\""}']);
  });

  it('is read by gitlab-ci-local: it lists every job, and each expanded script is strings only', async () => {
    // --list-json lists jobs whatever their rules say (`when: never` included).
    const listed = await gitlabCiLocal(text, ['--list-json']);
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as Array<{ name: string }>).map((job) => job.name)).toEqual(GITLAB_JOBS);
    // --preview: extends and !reference expanded, as the runner gets the jobs.
    const preview = await gitlabCiLocal(text, ['--preview']);
    expect(preview.code, preview.stderr).toBe(0);
    const expanded = parse(preview.stdout) as Record<string, unknown>;
    const { checked, problems } = nonStringScripts(expanded);
    expect(checked).toEqual(expect.arrayContaining(['apply-staging', 'apply-production']));
    expect(problems).toEqual([]);
    expect((expanded['apply-staging'] as { script: string[] }).script.join('\n')).toContain('--header "PRIVATE-TOKEN: $GITLAB_API_TOKEN"');
  }, 120_000);

  it('installs one pinned package and never runs npx', () => {
    expect(text).not.toMatch(/\bnpx\b/);
    expect(text).toMatch(/AGENTFORM_PACKAGE: \.\/vendor\/agentform-\d+\.\d+\.\d+\.tgz/);
  });

  it('plans merge requests with read-only keys, applies staging then production behind a manual gate, one apply at a time per environment', () => {
    expect(config.plan!.rules![0]!.if).toContain('merge_request_event');
    expect(config.plan!.script!.join('\n')).toContain('AGENTFORM_READ_TOKEN_STAGING');
    expect(config.plan!.script!.join('\n')).not.toMatch(/export AGENTFORM_TOKEN_\w+="\$AGENTFORM_CONTROL/);
    expect(config['apply-production']!.needs).toEqual(['apply-staging']);
    expect(config['apply-production']!.rules![0]!.when).toBe('manual');
    expect(config['apply-production']!.environment).toBe('production');
    expect(config['apply-staging']!.resource_group).toBe('agentform-staging');
    expect(config['apply-production']!.resource_group).toBe('agentform-production');
    // Production's apply gets staging's read-only key (its promotions' source), never its control key.
    expect(JSON.stringify(config['apply-production']!.before_script)).toContain('AGENTFORM_TOKEN_STAGING=\\"$AGENTFORM_READ_TOKEN_STAGING\\"');
    expect(JSON.stringify(config['apply-production']!.before_script)).not.toContain('AGENTFORM_TOKEN_STAGING=\\"$AGENTFORM_CONTROL');
    expect(config['.apply']!.script!.join('\n')).toMatch(/agentform apply "plan-\$ENVIRONMENT\.json"/);
    expect(JSON.stringify(config['apply-staging']!.before_script)).not.toContain('export AGENTFORM_TOKEN_PRODUCTION');
    expect(config.drift!.rules![0]!.if).toContain('schedule');
    expect(config.drift!.script!.join('\n')).toMatch(/agentform drift -e "\$ENVIRONMENT" --check-tools/);
  });

  it('updates one merge-request note for every environment, found by the marker agentform writes first', () => {
    const script = config.plan!.script!.join('\n');
    expect(script).toContain('agentform plan --envs staging,production');
    // The note uncut is kept as an artifact, which a cut note links to (GitLab serves it at that URL).
    expect(script).toContain('--markdown --markdown-full plan-full.md --markdown-link "$CI_JOB_URL/artifacts/file/plan-full.md"');
    expect(config.plan!.artifacts!.paths).toContain('plan-full.md');
    // Kept when the job fails too: the posted note links to it then as well.
    expect(config.plan!.artifacts!.when).toBe('always');
    expect(script).toContain('marker=$(head -n 1 plan.md)');
    // Posted only under agentform's marker, to a note of the token's own user found on any page; exit 0 or 2 only.
    expect(script).toContain(`grep -Eq '^<!-- agentform-plan(:[A-Za-z0-9_.-]+)? -->$'`);
    expect(script).toContain('$CI_API_V4_URL/user');
    expect(script).toContain('!n.system&&n.author&&String(n.author.id)===process.argv[2]');
    expect(script).toContain('x-next-page');
    expect(script).toContain('case "$code" in 0|2) ;; *) exit 1;; esac');
    expect(script).toMatch(/method=PUT/);
    expect(script).toContain('--data-urlencode "body@plan.md"');
    // Each environment's saved plan is kept for apply, which fetches it from the one plan job.
    expect(config.plan!.artifacts!.paths).toEqual(expect.arrayContaining(['plan-staging.json', 'plan-production.json']));
    expect(config['.apply']!.script!.join('\n')).toContain('raw/plan-$ENVIRONMENT.json?job=plan"');
  });
});
