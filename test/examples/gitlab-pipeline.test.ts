// The shipped GitLab recipe, run the way a runner runs it: gitlab-ci-local (shell executor) in a
// scratch config repository that does not vendor agentform's source, only its packed tarball,
// against a local control plane on 127.0.0.1 with a read-only and a control key per environment,
// and a fake GitLab API (test/helpers/fake-gitlab.ts) that records the merge-request notes.
// The loop: a merge request gets validate and one plan of every environment, one note for all of
// them (agentform writes it whole) updated in place on the next push; the merge applies the reviewed plans; a merge with nothing
// new applies nothing; a promotion is a merge request; the nightly drift job reports exit 2.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
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
import { artifactKey, startFakeGitLab, type FakeGitLab } from '../helpers/fake-gitlab.js';
import { REPO } from '../helpers/cli.js';

const run = promisify(execFile);
const GITLAB_CI_LOCAL = join(REPO, 'node_modules', '.bin', 'gitlab-ci-local');
const PIPELINE_TIMEOUT_MS = 5 * 60_000;

let work: string;
let repo: string;
let ci: CiPlane;
let gitlab: FakeGitLab;
let mergeRequest = 0;
/** The commit the open merge request branched from (main before its commits). */
let mergeRequestBase = '';

const git = (...args: string[]) => gitIn(repo, ...args);

/** The runner machine, and gitlab-ci-local's own switches: the predefined variables set here are meant. */
function runnerEnv(): NodeJS.ProcessEnv {
  return {
    ...runnerMachineEnv(work, [dirname(process.execPath)]),
    GCL_IGNORE_PREDEFINED_VARS: 'CI_PIPELINE_SOURCE,CI_API_V4_URL,CI_PROJECT_ID,CI_MERGE_REQUEST_IID,CI_MERGE_REQUEST_DIFF_BASE_SHA,CI_DEFAULT_BRANCH',
  };
}

/** The CI/CD variables of the project, as an administrator sets them (masked and protected alike here). */
function projectVariables(): Record<string, string> {
  return {
    CI_API_V4_URL: gitlab.apiUrl,
    CI_PROJECT_ID: gitlab.projectId,
    CI_DEFAULT_BRANCH: 'main',
    GITLAB_API_TOKEN: gitlab.token,
    AGENTFORM_PACKAGE: './vendor/agentform.tgz',
    AGENTFORM_URL_STAGING: ci.plane.url,
    AGENTFORM_URL_PRODUCTION: ci.plane.url,
    AGENTFORM_READ_TOKEN_STAGING: ci.keys.read.staging,
    AGENTFORM_READ_TOKEN_PRODUCTION: ci.keys.read.production,
    AGENTFORM_CONTROL_TOKEN_STAGING: ci.keys.control.staging,
    AGENTFORM_CONTROL_TOKEN_PRODUCTION: ci.keys.control.production,
    OPENAI_API_KEY: PROVIDER_SECRET,
  };
}

interface PipelineResult {
  code: number;
  output: string;
}

/** One pipeline, on a fresh checkout (as a runner gets): what the previous one left is cleaned first. */
async function pipeline(source: 'merge_request_event' | 'push' | 'schedule', extra: string[] = []): Promise<PipelineResult> {
  await git('clean', '-ffdxq', '-e', '.gitlab-ci-local');
  const variables = {
    ...projectVariables(),
    CI_PIPELINE_SOURCE: source,
    ...(source === 'merge_request_event' ? { CI_MERGE_REQUEST_IID: String(mergeRequest), CI_MERGE_REQUEST_DIFF_BASE_SHA: mergeRequestBase } : {}),
  };
  // One job at a time: the jobs share the test's npm prefix, where a runner gives each its own container.
  const args = [
    '--force-shell-executor',
    '--concurrency',
    '1',
    '--no-color',
    '--max-job-name-padding',
    '0',
    ...Object.entries(variables).flatMap(([name, value]) => ['--variable', `${name}=${value}`]),
    ...extra,
  ];
  try {
    const { stdout, stderr } = await run(GITLAB_CI_LOCAL, args, { cwd: repo, env: runnerEnv(), timeout: PIPELINE_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** A merge request's pipeline: its plan artifacts become what GitLab serves for the merge request's head. */
async function mergeRequestPipeline(): Promise<PipelineResult> {
  const result = await pipeline('merge_request_event');
  const artifacts = join(repo, '.gitlab-ci-local', 'artifacts');
  for (const job of await readdir(artifacts)) {
    for (const file of await readdir(join(artifacts, job))) {
      const environment = /^plan-(staging|production)\.json$/.exec(file)?.[1];
      if (!environment) continue;
      gitlab.artifacts.set(artifactKey(`refs/merge-requests/${mergeRequest}/head`, 'plan', file), await readFile(join(artifacts, job, file)));
    }
  }
  return result;
}

/** A merge request with these files, pushed: the commit is the one the merge puts on main. */
async function openMergeRequest(files: Record<string, string>, title: string): Promise<void> {
  mergeRequest += 1;
  mergeRequestBase = await git('rev-parse', 'HEAD');
  await commit(files, title);
}

async function commit(files: Record<string, string>, message: string): Promise<void> {
  gitlab.mergeRequestOfCommit.set(await commitFiles(repo, files, message), mergeRequest);
}

const notesOf = (iid: number) => gitlab.notes.get(iid) ?? [];

/** One environment's part of the merge request's note: from its heading to the next environment's. */
function sectionOf(body: string, environment: string): string {
  const start = body.indexOf(`### agentform plan: \`${environment}\``);
  expect(start, body).toBeGreaterThan(-1);
  const next = body.indexOf('\n### agentform plan: ', start + 1);
  return body.slice(start, next === -1 ? undefined : next);
}
const jobLines = (output: string, job: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith(`${job} `))
    .join('\n');

async function liveAgent(environment: Environment) {
  return ci.admin[environment].agentsGet({ slug: 'support' });
}

beforeAll(async () => {
  // gitlab-ci-local copies the work tree with rsync before any pipeline: without it nothing runs.
  await run('rsync', ['--version']).catch(() => {
    throw new Error('gitlab-ci-local needs rsync to run a pipeline: install it (apt-get install rsync); .ci/run does');
  });
  work = await mkdtemp(join(tmpdir(), 'agentform-gitlab-pipeline-'));
  repo = join(work, 'config');
  await mkdir(join(work, 'home'), { recursive: true });
  await mkdir(repo, { recursive: true });
  await packInto(work, join(repo, 'vendor', 'agentform.tgz'));
  ci = await startCiPlane(join(work, 'plane'));
  gitlab = await startFakeGitLab();

  await git('init', '-q', '-b', 'main');
  await copyFile(join(REPO, 'examples', 'gitlab-ci', '.gitlab-ci.yml'), join(repo, '.gitlab-ci.yml'));
  await commit({ 'agentform.yaml': ROOT, '.gitignore': '.agentform/\n.gitlab-ci-local/\n' }, 'the recipe and an empty project');
}, 120_000);

afterAll(async () => {
  await ci?.close();
  await gitlab?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the GitLab recipe, run by gitlab-ci-local', () => {
  it(
    'a merge request: validate, a plan of every environment with their read keys, one note, updated in place on the next push',
    async () => {
      await openMergeRequest({ 'providers.yaml': PROVIDER, 'agents.yaml': agent('You help customers.') }, 'add the support agent');
      const first = await mergeRequestPipeline();
      expect(first.code, first.output).toBe(0);
      expect(first.output).toMatch(/PASS\s+validate/);
      expect(first.output).toMatch(/PASS\s+plan\b/);
      // The merge request pipeline never applies.
      expect(first.output).not.toMatch(/apply-(staging|production)/);
      const notes = notesOf(mergeRequest);
      expect(notes).toHaveLength(1);
      expect(notes[0]!.body.split('\n').slice(0, 2)).toEqual(['<!-- agentform-plan -->', '## agentform plan: every environment']);
      for (const environment of ['staging', 'production']) expect(sectionOf(notes[0]!.body, environment)).toContain('agent/support');

      // A second push: the same note, its text replaced.
      await commit({ 'agents.yaml': agent('You help customers, briefly.') }, 'shorter answers');
      const second = await mergeRequestPipeline();
      expect(second.code, second.output).toBe(0);
      expect(notesOf(mergeRequest)).toHaveLength(1);
      for (const environment of ['staging', 'production']) expect(sectionOf(notesOf(mergeRequest)[0]!.body, environment)).toContain('briefly');
      // No secret reached a note.
      for (const note of notesOf(mergeRequest)) expect(note.body).not.toContain(PROVIDER_SECRET);
    },
    PIPELINE_TIMEOUT_MS * 2,
  );

  it(
    'the merge: applies exactly the reviewed plans with the control keys; a merge with nothing new applies nothing',
    async () => {
      const merged = await pipeline('push', ['--manual', 'apply-production']);
      expect(merged.code, merged.output).toBe(0);
      expect(merged.output).toMatch(/PASS\s+apply-staging/);
      expect(merged.output).toMatch(/PASS\s+apply-production/);
      expect(jobLines(merged.output, 'apply-staging')).toContain('Apply complete! Resources: 2 added');
      for (const environment of ENVIRONMENTS) expect((await liveAgent(environment)).definition.system).toBe('You help customers, briefly.');
      // Both CI keys survive the prune of every environment.
      for (const environment of ENVIRONMENTS) {
        const live = (await ci.admin[environment].apiKeysList()).filter((key) => !key.revokedAt).map((key) => key.name);
        expect(live).toEqual(expect.arrayContaining(['ci-read', 'ci-control']));
      }

      // A merge request that changes nothing agentform manages (a README), then its merge.
      await openMergeRequest({ 'README.md': 'Our agents.\n' }, 'docs only');
      const review = await mergeRequestPipeline();
      expect(review.code, review.output).toBe(0);
      const again = await pipeline('push', ['--manual', 'apply-production']);
      expect(again.code, again.output).toBe(0);
      expect(again.output).toContain('No changes.');
      expect(again.output).not.toMatch(/Apply complete/);
    },
    PIPELINE_TIMEOUT_MS * 4,
  );

  it(
    'a stale reviewed plan is refused with the reason, and nothing is written',
    async () => {
      await openMergeRequest({ 'agents.yaml': agent('You help customers, briefly and kindly.') }, 'kinder');
      const review = await mergeRequestPipeline();
      expect(review.code, review.output).toBe(0);
      // After the review, before the merge: a change out of band.
      await ci.admin.staging.providersCreate({ name: 'out-of-band', type: 'openai' });
      const merged = await pipeline('push');
      expect(merged.code).not.toBe(0);
      expect(jobLines(merged.output, 'apply-staging')).toContain('the saved plan is stale');
      expect(jobLines(merged.output, 'apply-staging')).toContain('provider/out-of-band: the remote object appeared since the plan was saved');
      expect((await liveAgent('staging')).definition.system).toBe('You help customers, briefly.');
      // The fix is a new review: the plan now also prunes the provider, and applies.
      const rerun = await mergeRequestPipeline();
      expect(rerun.code, rerun.output).toBe(0);
      const mergedAgain = await pipeline('push', ['--manual', 'apply-production']);
      expect(mergedAgain.code, mergedAgain.output).toBe(0);
      expect((await liveAgent('staging')).definition.system).toBe('You help customers, briefly and kindly.');
    },
    PIPELINE_TIMEOUT_MS * 4,
  );

  it(
    'promotion is a merge request: production takes a staging version, planned and applied with staging read-only',
    async () => {
      // Production pinned to what staging runs now; staging moves on.
      const pinned = (await liveAgent('staging')).version;
      await openMergeRequest({ 'agents.yaml': agent('You help customers in their language.', pinned) }, 'pin production, new staging prompt');
      expect((await mergeRequestPipeline()).code).toBe(0);
      const first = await pipeline('push', ['--manual', 'apply-production']);
      expect(first.code, first.output).toBe(0);
      expect((await liveAgent('staging')).definition.system).toBe('You help customers in their language.');
      expect((await liveAgent('production')).definition.system).toBe('You help customers, briefly and kindly.');

      // The promotion: one line.
      const next = (await liveAgent('staging')).version;
      await openMergeRequest({ 'agents.yaml': agent('You help customers in their language.', next) }, `promote support v${next} to production`);
      const review = await mergeRequestPipeline();
      expect(review.code, review.output).toBe(0);
      expect(sectionOf(notesOf(mergeRequest)[0]!.body, 'production')).toContain('agent/support');
      const merged = await pipeline('push', ['--manual', 'apply-production']);
      expect(merged.code, merged.output).toBe(0);
      const production = await liveAgent('production');
      expect(production.definition.system).toBe('You help customers in their language.');
      expect(production.promotedFrom?.version).toBe(next);
    },
    PIPELINE_TIMEOUT_MS * 4,
  );

  it(
    'the nightly drift job reports exit code 2 when the live state moved away from Git',
    async () => {
      const clean = await pipeline('schedule');
      expect(clean.code, clean.output).toBe(0);
      await ci.admin.staging.agentsUpsert({ slug: 'support', definition: { ...(await liveAgent('staging')).definition, system: 'Edited by hand.' } });
      const drifted = await pipeline('schedule');
      expect(drifted.code).not.toBe(0);
      expect(drifted.output).toMatch(/FAIL\s+drift: \[staging\]/);
      expect(drifted.output).toMatch(/PASS\s+drift: \[production\]/);
      expect(jobLines(drifted.output, 'drift: [staging]')).toContain('Edited by hand.');
    },
    PIPELINE_TIMEOUT_MS * 2,
  );
});
