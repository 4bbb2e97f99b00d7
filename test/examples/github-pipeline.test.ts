// The shipped GitHub Actions recipe, run the way a hosted runner runs it: every job's steps in
// order by test/helpers/workflow-runner.ts (its `run:` steps in bash, the downloaded actions and the
// `gh` CLI stood in for), in a scratch config repository that does not vendor agentform's source,
// only its packed tarball, against a local control plane on 127.0.0.1 with a read-only and a control
// key per environment, and a fake GitHub (test/helpers/fake-github.ts) that records the comments.
// The loop: a pull request gets validate and one plan of every environment, one comment for all
// of them (agentform writes it whole) updated in place on the next push; the merge applies the reviewed plans; a merge with nothing new
// applies nothing; a stale reviewed plan is refused; a promotion is a pull request; the nightly
// drift job reports exit 2. (The workflow schema is checked by ci-recipes.test.ts.)
import { copyFile, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ENVIRONMENTS,
  PROVIDER,
  PROVIDER_SECRET,
  ROOT,
  agent,
  commitFiles,
  gitIn,
  packInto,
  runnerMachineEnv,
  startCiPlane,
  type CiPlane,
  type Environment,
} from '../helpers/ci-scenario.js';
import { fakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { runWorkflow, type JobResult, type WorkflowResult } from '../helpers/workflow-runner.js';
import { REPO } from '../helpers/cli.js';

const WORKFLOWS = join(REPO, 'examples', 'github-actions', '.github', 'workflows');
const PIPELINE_TIMEOUT_MS = 5 * 60_000;

let work: string;
let repo: string;
let ci: CiPlane;
let github: FakeGitHub;
let pullRequest = 0;
let runId = 1000;

const git = (...args: string[]) => gitIn(repo, ...args);

/** The runner machine, with where each environment's control plane is (an administrator's job env; here, the machine's). */
function machineEnv(): Record<string, string> {
  return { ...runnerMachineEnv(work, []), AGENTFORM_URL_STAGING: ci.plane.url, AGENTFORM_URL_PRODUCTION: ci.plane.url };
}

/** The repository's secrets, as an administrator sets them (environment secrets alike here). */
function secrets(): Record<string, string> {
  return {
    AGENTFORM_READ_TOKEN_STAGING: ci.keys.read.staging,
    AGENTFORM_READ_TOKEN_PRODUCTION: ci.keys.read.production,
    AGENTFORM_CONTROL_TOKEN_STAGING: ci.keys.control.staging,
    AGENTFORM_CONTROL_TOKEN_PRODUCTION: ci.keys.control.production,
    OPENAI_API_KEY: PROVIDER_SECRET,
  };
}

/** One workflow run; every job on a fresh checkout (what the previous job left is cleaned first). */
async function workflow(file: string, eventName: 'pull_request' | 'push' | 'schedule'): Promise<WorkflowResult> {
  runId += 1;
  const result = await runWorkflow(join(WORKFLOWS, file), {
    workspace: repo,
    runnerTemp: join(work, 'runner'),
    artifactsDir: join(work, 'artifacts'),
    github,
    eventName,
    sha: await git('rev-parse', 'HEAD'),
    runId,
    ...(eventName === 'pull_request' ? { pullRequest } : {}),
    secrets: secrets(),
    machineEnv: machineEnv(),
    beforeJob: async () => void (await git('clean', '-ffdxq')),
  });
  if (file === 'agentform-plan.yml') github.runs.push({ databaseId: runId, workflow: file, headSha: await git('rev-parse', 'HEAD'), status: result.result });
  return result;
}

const planPullRequest = () => workflow('agentform-plan.yml', 'pull_request');
const merge = () => workflow('agentform-apply.yml', 'push');
const nightly = () => workflow('agentform-drift.yml', 'schedule');

function job(result: WorkflowResult, name: string): JobResult {
  const found = result.jobs.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no job ${name} in ${result.jobs.map((candidate) => candidate.name).join(', ')}`);
  return found;
}

const everything = (result: WorkflowResult) => result.jobs.map((item) => `=== ${item.name}: ${item.result}\n${item.output}`).join('\n');

/** A pull request with these files, pushed: the commit is the one the merge puts on main. */
async function openPullRequest(files: Record<string, string>, title: string): Promise<void> {
  pullRequest += 1;
  await commit(files, title);
}

async function commit(files: Record<string, string>, message: string): Promise<void> {
  const sha = await commitFiles(repo, files, message);
  github.pullsOfCommit.set(sha, [pullRequest]);
  github.pullHeads.set(pullRequest, sha);
}

const commentsOf = (number: number) => github.comments.filter((comment) => comment.issue === number);

/** The pull request's one comment. */
function commentOf(number: number): string {
  const comments = commentsOf(number);
  expect(comments).toHaveLength(1);
  return comments[0]!.body;
}

/** One environment's part of the comment: from its heading to the next environment's. */
function sectionOf(body: string, environment: Environment): string {
  const start = body.indexOf(`### agentform plan: \`${environment}\``);
  expect(start, body).toBeGreaterThan(-1);
  const next = body.indexOf('\n### agentform plan: ', start + 1);
  return body.slice(start, next === -1 ? undefined : next);
}

async function liveAgent(environment: Environment) {
  return ci.admin[environment].agentsGet({ slug: 'support' });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'agentform-github-pipeline-'));
  repo = join(work, 'config');
  await mkdir(join(work, 'home'), { recursive: true });
  await mkdir(join(work, 'runner'), { recursive: true });
  await mkdir(repo, { recursive: true });
  // The tarball the workflows name (AGENTFORM_PACKAGE), in vendor/.
  await packInto(work, join(repo, 'vendor', 'agentform-0.1.0.tgz'));
  ci = await startCiPlane(join(work, 'plane'));
  github = fakeGitHub('acme/config');

  await git('init', '-q', '-b', 'main');
  await mkdir(join(repo, '.github', 'workflows'), { recursive: true });
  for (const file of ['agentform-plan.yml', 'agentform-apply.yml', 'agentform-drift.yml'])
    await copyFile(join(WORKFLOWS, file), join(repo, '.github', 'workflows', file));
  await commit({ 'agentform.yaml': ROOT, '.gitignore': '.agentform/\n' }, 'the recipe and an empty project');
}, 120_000);

afterAll(async () => {
  await ci?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the GitHub Actions recipe, its jobs run step by step', () => {
  it(
    'a pull request: validate, a plan of every environment with their read keys, one comment, updated in place on the next push',
    async () => {
      await openPullRequest({ 'providers.yaml': PROVIDER, 'agents.yaml': agent('You help customers.') }, 'add the support agent');
      const first = await planPullRequest();
      expect(first.result, everything(first)).toBe('success');
      expect(first.jobs.map((item) => `${item.name}: ${item.result}`)).toEqual(['validate: success', 'plan: success']);
      // The install step went to the test's prefix, never the machine's.
      expect(existsSync(join(work, 'prefix', 'bin', 'agentform'))).toBe(true);
      const body = commentOf(pullRequest);
      expect(body.split('\n').slice(0, 2)).toEqual(['<!-- agentform-plan -->', '## agentform plan: every environment']);
      for (const environment of ENVIRONMENTS) {
        expect(body).toMatch(new RegExp(`^\\| \`${environment}\` \\| 2 \\| 0 \\| 0 \\| 0 \\| .* \\| changes \\|$`, 'm'));
        expect(sectionOf(body, environment)).toContain('agent/support');
      }
      // The plan is kept for the apply workflow, per environment.
      for (const environment of ENVIRONMENTS) {
        const saved = JSON.parse(await readFile(join(work, 'artifacts', String(runId), `plan-${environment}`, `plan-${environment}.json`), 'utf8')) as {
          environment: string;
        };
        expect(saved.environment).toBe(environment);
      }

      // A second push: the same comment, its text replaced.
      const updates = github.updates;
      await commit({ 'agents.yaml': agent('You help customers, briefly.') }, 'shorter answers');
      const second = await planPullRequest();
      expect(second.result, everything(second)).toBe('success');
      expect(github.updates).toBe(updates + 1);
      for (const environment of ENVIRONMENTS) expect(sectionOf(commentOf(pullRequest), environment)).toContain('briefly');
      // No secret reached a comment.
      for (const comment of commentsOf(pullRequest)) expect(comment.body).not.toContain(PROVIDER_SECRET);
    },
    PIPELINE_TIMEOUT_MS * 2,
  );

  it(
    'the merge: applies exactly the reviewed plans with the control keys; a merge with nothing new applies nothing',
    async () => {
      const merged = await merge();
      expect(merged.result, everything(merged)).toBe('success');
      expect(merged.jobs.map((item) => `${item.name}: ${item.result}`)).toEqual(['staging: success', 'production: success']);
      expect(job(merged, 'staging').output).toContain('Apply complete! Resources: 2 added');
      for (const environment of ENVIRONMENTS) expect((await liveAgent(environment)).definition.system).toBe('You help customers, briefly.');
      // Both CI keys survive the prune of every environment.
      for (const environment of ENVIRONMENTS) {
        const live = (await ci.admin[environment].apiKeysList()).filter((key) => !key.revokedAt).map((key) => key.name);
        expect(live).toEqual(expect.arrayContaining(['ci-read', 'ci-control']));
      }

      // A pull request that changes nothing agentform manages (a README), then its merge.
      await openPullRequest({ 'README.md': 'Our agents.\n' }, 'docs only');
      const review = await planPullRequest();
      expect(review.result, everything(review)).toBe('success');
      for (const environment of ENVIRONMENTS) expect(commentOf(pullRequest)).toMatch(new RegExp(`^\\| \`${environment}\` \\|.* \\| no changes \\|$`, 'm'));
      const again = await merge();
      expect(again.result, everything(again)).toBe('success');
      expect(everything(again)).toContain('No changes.');
      expect(everything(again)).not.toMatch(/Apply complete/);
    },
    PIPELINE_TIMEOUT_MS * 4,
  );

  it(
    'a stale reviewed plan is refused with the reason, and nothing is written',
    async () => {
      await openPullRequest({ 'agents.yaml': agent('You help customers, briefly and kindly.') }, 'kinder');
      const review = await planPullRequest();
      expect(review.result, everything(review)).toBe('success');
      // After the review, before the merge: a change out of band.
      await ci.admin.staging.providersCreate({ name: 'out-of-band', type: 'openai' });
      const merged = await merge();
      expect(merged.result).toBe('failure');
      expect(merged.jobs.map((item) => `${item.name}: ${item.result}`)).toEqual(['staging: failure', 'production: skipped']);
      expect(job(merged, 'staging').output).toContain('the saved plan is stale');
      expect(job(merged, 'staging').output).toContain('provider/out-of-band: the remote object appeared since the plan was saved');
      expect((await liveAgent('staging')).definition.system).toBe('You help customers, briefly.');
      // The fix is a new plan run on the pull request: it also prunes the provider, and applies.
      const rerun = await planPullRequest();
      expect(rerun.result, everything(rerun)).toBe('success');
      const mergedAgain = await merge();
      expect(mergedAgain.result, everything(mergedAgain)).toBe('success');
      expect((await liveAgent('staging')).definition.system).toBe('You help customers, briefly and kindly.');
    },
    PIPELINE_TIMEOUT_MS * 4,
  );

  it(
    'promotion is a pull request: production takes a staging version, planned and applied with staging read-only',
    async () => {
      // Production pinned to what staging runs now; staging moves on.
      const pinned = (await liveAgent('staging')).version;
      await openPullRequest({ 'agents.yaml': agent('You help customers in their language.', pinned) }, 'pin production, new staging prompt');
      const pinning = await planPullRequest();
      expect(pinning.result, everything(pinning)).toBe('success');
      const first = await merge();
      expect(first.result, everything(first)).toBe('success');
      expect((await liveAgent('staging')).definition.system).toBe('You help customers in their language.');
      expect((await liveAgent('production')).definition.system).toBe('You help customers, briefly and kindly.');

      // The promotion: one line.
      const next = (await liveAgent('staging')).version;
      await openPullRequest({ 'agents.yaml': agent('You help customers in their language.', next) }, `promote support v${next} to production`);
      const review = await planPullRequest();
      expect(review.result, everything(review)).toBe('success');
      expect(sectionOf(commentOf(pullRequest), 'production')).toContain('agent/support');
      const merged = await merge();
      expect(merged.result, everything(merged)).toBe('success');
      const production = await liveAgent('production');
      expect(production.definition.system).toBe('You help customers in their language.');
      expect(production.promotedFrom?.version).toBe(next);
    },
    PIPELINE_TIMEOUT_MS * 4,
  );

  it(
    'the nightly drift job reports exit code 2 when the live state moved away from Git',
    async () => {
      const clean = await nightly();
      expect(clean.result, everything(clean)).toBe('success');
      await ci.admin.staging.agentsUpsert({ slug: 'support', definition: { ...(await liveAgent('staging')).definition, system: 'Edited by hand.' } });
      const drifted = await nightly();
      expect(drifted.jobs.map((item) => `${item.name}: ${item.result}`)).toEqual(['drift (staging): failure', 'drift (production): success']);
      expect(job(drifted, 'drift (staging)').steps.at(-1)).toEqual({ name: 'drift in staging', outcome: 'failure', code: 2 });
      expect(job(drifted, 'drift (staging)').output).toContain('Edited by hand.');
    },
    PIPELINE_TIMEOUT_MS * 2,
  );

  it(
    'a pull request that declares a resource made by hand shows it as adopt, and the merge takes it over',
    async () => {
      await ci.admin.staging.providersCreate({ name: 'hand-made', type: 'openai' });
      const declared = PROVIDER.replace('name: openai', 'name: hand-made');
      await openPullRequest({ 'hand-made.yaml': declared, 'agents.yaml': agent('You help customers in their language.') }, 'manage the hand-made provider');
      const review = await planPullRequest();
      expect(review.result, everything(review)).toBe('success');
      expect(sectionOf(commentOf(pullRequest), 'staging')).toContain('`provider/hand-made` adopt');
      // Production never had it: there it is created, not adopted.
      expect(sectionOf(commentOf(pullRequest), 'production')).toContain('`provider/hand-made` create');
      const merged = await merge();
      expect(merged.result, everything(merged)).toBe('success');
      expect(job(merged, 'staging').output).toContain('provider/hand-made: Adopted');
      expect((await ci.admin.staging.providersList()).map((item) => item.name)).toContain('hand-made');
    },
    PIPELINE_TIMEOUT_MS * 4,
  );
});

describe('the workflow runner', () => {
  /** A workflow of these jobs, run in a scratch workspace with no control plane. */
  async function runScratch(jobs: string): Promise<{ result: WorkflowResult; workspace: string }> {
    const scratch = await mkdtemp(join(tmpdir(), 'agentform-workflow-runner-'));
    const workspace = join(scratch, 'workspace');
    await mkdir(workspace);
    await mkdir(join(scratch, 'runner'));
    await writeFile(join(scratch, 'workflow.yml'), `name: scratch\non: push\nenv: {A: workflow, B: workflow}\njobs:\n${jobs}`);
    const result = await runWorkflow(join(scratch, 'workflow.yml'), {
      workspace,
      runnerTemp: join(scratch, 'runner'),
      artifactsDir: join(scratch, 'artifacts'),
      github: fakeGitHub(),
      eventName: 'push',
      sha: '0'.repeat(40),
      runId: 1,
      secrets: {},
      machineEnv: { PATH: '/usr/bin:/bin' },
    });
    return { result, workspace };
  }

  it('runs steps in order with layered env, outputs, GITHUB_ENV, pipefail and if: conditions', async () => {
    const { result, workspace } = await runScratch(`  one:
    env: {B: job}
    steps:
      - id: first
        env: {C: step}
        run: |
          echo "word=$A-$B-$C" >> "$GITHUB_OUTPUT"
          echo "LATER=from-env-file" >> "$GITHUB_ENV"
      - run: false | true
      - if: failure()
        run: echo "\${{ steps.first.outputs.word }} $LATER \${{ env.B == 'JOB' && 'equal' || 'different' }}" > result.txt
      - run: echo never > never.txt
  two:
    needs: one
    steps:
      - run: echo skipped
`);
    expect(result.jobs.map((item) => `${item.name}: ${item.result}`)).toEqual(['one: failure', 'two: skipped']);
    expect(result.jobs[0]!.steps.map((step) => step.outcome)).toEqual(['success', 'failure', 'success', 'skipped']);
    expect(await readFile(join(workspace, 'result.txt'), 'utf8')).toBe('workflow-job-step from-env-file equal\n');
    expect(existsSync(join(workspace, 'never.txt'))).toBe(false);
  });

  it('fails loudly on an expression or an action it does not stand in for', async () => {
    await expect(runScratch(`  one:\n    steps:\n      - run: echo \${{ inputs.name }}\n`)).rejects.toThrow(
      'cannot evaluate ${{ inputs.name }}: the context inputs is not supported',
    );
    await expect(runScratch(`  one:\n    steps:\n      - run: echo \${{ toJSON(github) }}\n`)).rejects.toThrow('the function toJSON');
    await expect(runScratch(`  one:\n    steps:\n      - uses: actions/setup-python@v5\n`)).rejects.toThrow('no stand-in for actions/setup-python@v5');
    await expect(runScratch(`  one:\n    steps:\n      - run: pwd\n        working-directory: sub\n`)).rejects.toThrow(
      'does not support working-directory in a step',
    );
  });
});
