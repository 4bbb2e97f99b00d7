// A small GitHub Actions runner for the shipped workflows: a job's steps in order, as the hosted
// runner executes them. `run:` steps are bash scripts (`bash --noprofile --norc -eo pipefail {0}`)
// in the workspace with the workflow's, job's and step's `env:`; `${{ }}` expressions and `if:` are
// evaluated for the subset the recipes use, and anything else throws so a new construct in a
// workflow is noticed instead of silently misread. Actions that GitHub would download are stood
// in for (checkout, setup-node, cache, upload/download-artifact, github-script), and so is the `gh`
// CLI, by a node script first on PATH that answers from the FakeGitHub's state.
import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parse } from 'yaml';
import { runGithubScript, type FakeGitHub } from './fake-github.js';

interface Step {
  id?: string;
  name?: string;
  if?: string;
  run?: string;
  uses?: string;
  env?: Record<string, string | number | boolean>;
  with?: Record<string, string | number | boolean>;
}

interface Job {
  needs?: string | string[];
  env?: Record<string, string>;
  strategy?: { matrix?: Record<string, unknown[]>; 'fail-fast'?: boolean };
  steps: Step[];
}

export interface Workflow {
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

export async function readWorkflow(file: string): Promise<Workflow> {
  return parse(await readFile(file, 'utf8')) as Workflow;
}

/** What one workflow run is given: the event, the repository's secrets and variables, the runner's machine. */
export interface RunOptions {
  /** The checked-out repository: every job's workspace. */
  workspace: string;
  /** Scratch space of the runner (step scripts, output files, the `gh` stand-in). */
  runnerTemp: string;
  /** Where upload-artifact puts files: `<dir>/<run id>/<artifact name>/`. */
  artifactsDir: string;
  github: FakeGitHub;
  eventName: 'pull_request' | 'push' | 'schedule' | 'workflow_dispatch';
  sha: string;
  runId: number;
  pullRequest?: number;
  secrets: Record<string, string>;
  vars?: Record<string, string>;
  /** The runner machine's environment (PATH, HOME, npm's settings, ...), under every step's. */
  machineEnv: Record<string, string>;
  /** Called before each job: a hosted runner gives every job a fresh checkout. */
  beforeJob?: () => Promise<void>;
  stepTimeoutMs?: number;
}

export interface JobResult {
  /** `plan (staging)`: the job's id and its matrix value, as GitHub names a matrix job. */
  name: string;
  result: 'success' | 'failure' | 'skipped';
  steps: Array<{ name: string; outcome: 'success' | 'failure' | 'skipped'; code: number }>;
  output: string;
}

export interface WorkflowResult {
  result: 'success' | 'failure';
  jobs: JobResult[];
}

/** Every job of a workflow, one at a time, in `needs` order, each matrix value in turn. */
export async function runWorkflow(file: string, options: RunOptions): Promise<WorkflowResult> {
  const workflow = await readWorkflow(file);
  const done = new Map<string, boolean>();
  const jobs: JobResult[] = [];
  const pending = Object.keys(workflow.jobs);
  while (pending.length > 0) {
    const index = pending.findIndex((id) => needsOf(workflow.jobs[id]!).every((need) => done.has(need)));
    if (index < 0) throw new Error(`${basename(file)}: the jobs ${pending.join(', ')} wait for each other`);
    const [id] = pending.splice(index, 1) as [string];
    const job = workflow.jobs[id]!;
    const matrices = expandMatrix(job);
    let ok = true;
    for (const matrix of matrices) {
      const name = matrix.environment === undefined ? id : `${id} (${Object.values(matrix).join(', ')})`;
      // A job whose needs did not all succeed is skipped, as GitHub does without an `if:`.
      if (!needsOf(job).every((need) => done.get(need))) {
        jobs.push({ name, result: 'skipped', steps: [], output: '' });
        ok = false;
        continue;
      }
      await options.beforeJob?.();
      const result = await runJob(workflow, id, matrix, options);
      jobs.push({ ...result, name });
      if (result.result !== 'success') ok = false;
    }
    done.set(id, ok);
  }
  return { result: jobs.every((job) => job.result === 'success') ? 'success' : 'failure', jobs };
}

function needsOf(job: Job): string[] {
  return job.needs === undefined ? [] : Array.isArray(job.needs) ? job.needs : [job.needs];
}

function expandMatrix(job: Job): Array<Record<string, string>> {
  const matrix = job.strategy?.matrix;
  if (!matrix) return [{}];
  // Every matrix value runs to its end, which is what `fail-fast: false` (the recipes') asks for.
  if (job.strategy?.['fail-fast'] !== false) throw new UnsupportedError(`a matrix without fail-fast: false is not supported`);
  const keys = Object.keys(matrix);
  if (keys.length !== 1 || keys[0] !== 'environment') throw new Error(`unsupported matrix: ${JSON.stringify(matrix)}`);
  return matrix.environment!.map((value) => ({ environment: String(value) }));
}

/** The contexts an expression reads. */
interface Contexts {
  github: Record<string, unknown>;
  secrets: Record<string, string>;
  vars: Record<string, string>;
  matrix: Record<string, string>;
  env: Record<string, string>;
  steps: Record<string, { outputs: Record<string, string>; outcome: string }>;
  jobStatus: 'success' | 'failure';
}

/** One job: its steps in order; a failed step skips the rest (none of the recipes' steps has `if:`). */
export async function runJob(workflow: Workflow, id: string, matrix: Record<string, string>, options: RunOptions): Promise<JobResult> {
  const job = workflow.jobs[id];
  if (!job) throw new Error(`no job ${id}`);
  // A key the runner would ignore (shell:, working-directory:, continue-on-error:, ...) changes what
  // the job does: refuse it rather than run something other than what GitHub would.
  const unknownJobKeys = Object.keys(job).filter((key) => !JOB_KEYS.has(key));
  if (unknownJobKeys.length > 0) throw new UnsupportedError(`${id}: the workflow runner does not support ${unknownJobKeys.join(', ')}`);
  for (const step of job.steps) {
    const unknown = Object.keys(step).filter((key) => !STEP_KEYS.has(key));
    if (unknown.length > 0) throw new UnsupportedError(`${id}: the workflow runner does not support ${unknown.join(', ')} in a step`);
  }
  const temp = await mkdtemp(join(options.runnerTemp, `${id}-`));
  const [owner, repo] = options.github.repository.split('/') as [string, string];
  const github = {
    token: options.github.token,
    repository: options.github.repository,
    repository_owner: owner,
    sha: options.sha,
    event_name: options.eventName,
    run_id: String(options.runId),
    server_url: 'https://github.com',
    workspace: options.workspace,
    event: options.pullRequest === undefined ? {} : { pull_request: { number: options.pullRequest } },
  };
  const contexts: Contexts = { github, secrets: options.secrets, vars: options.vars ?? {}, matrix, env: {}, steps: {}, jobStatus: 'success' };
  // The `gh` stand-in and its state: what FakeGitHub knows when the job starts.
  const ghBin = join(temp, 'gh-bin');
  await mkdir(ghBin);
  await writeFile(join(ghBin, 'gh'), GH_STUB(process.execPath));
  await chmod(join(ghBin, 'gh'), 0o755);
  const ghState = join(temp, 'gh-state.json');
  await writeFile(ghState, options.github.state(options.artifactsDir));

  let path = [ghBin, options.machineEnv.PATH ?? '/usr/bin:/bin'].join(':');
  const jobEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(workflow.env ?? {})) jobEnv[key] = interpolate(String(value), { ...contexts, env: { ...jobEnv } });
  for (const [key, value] of Object.entries(job.env ?? {})) jobEnv[key] = interpolate(String(value), { ...contexts, env: { ...jobEnv } });
  const summary = join(temp, 'step-summary.md');
  await writeFile(summary, '');
  const result: JobResult = { name: id, result: 'success', steps: [], output: '' };

  for (const [index, step] of job.steps.entries()) {
    contexts.env = { ...jobEnv };
    const label = step.name !== undefined ? interpolate(step.name, contexts) : (step.uses ?? `step ${index + 1}`);
    if (!condition(step.if, contexts)) {
      result.steps.push({ name: label, outcome: 'skipped', code: 0 });
      if (step.id) contexts.steps[step.id] = { outputs: {}, outcome: 'skipped' };
      continue;
    }
    const stepEnv: Record<string, string> = { ...jobEnv };
    for (const [key, value] of Object.entries(step.env ?? {})) stepEnv[key] = interpolate(String(value), contexts);
    const outputFile = join(temp, `output-${index}`);
    const envFile = join(temp, `env-${index}`);
    const pathFile = join(temp, `path-${index}`);
    await Promise.all([outputFile, envFile, pathFile].map((file) => writeFile(file, '')));
    const env: Record<string, string> = {
      ...options.machineEnv,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: options.workspace,
      GITHUB_REPOSITORY: options.github.repository,
      GITHUB_REPOSITORY_OWNER: owner,
      GITHUB_SHA: options.sha,
      GITHUB_EVENT_NAME: options.eventName,
      GITHUB_RUN_ID: String(options.runId),
      GITHUB_SERVER_URL: github.server_url,
      GITHUB_JOB: id,
      GITHUB_OUTPUT: outputFile,
      GITHUB_ENV: envFile,
      GITHUB_PATH: pathFile,
      GITHUB_STEP_SUMMARY: summary,
      RUNNER_TEMP: temp,
      FAKE_GH_STATE: ghState,
      ...stepEnv,
      PATH: path,
    };
    result.output += `\n::group::${label}\n`;
    let code = 0;
    if (step.run !== undefined) {
      const script = join(temp, `step-${index}.sh`);
      await writeFile(script, interpolate(step.run, contexts));
      const ran = await shell(['--noprofile', '--norc', '-eo', 'pipefail', script], options.workspace, env, options.stepTimeoutMs ?? 180_000);
      code = ran.code;
      result.output += ran.output;
    } else if (step.uses !== undefined) {
      const inputs: Record<string, string> = {};
      for (const [key, value] of Object.entries(step.with ?? {})) inputs[key] = interpolate(String(value), contexts);
      try {
        const added = await standIn(step.uses, inputs, env, options, repo, owner);
        if (added) path = `${added}:${path}`;
      } catch (error) {
        if (error instanceof UnsupportedError) throw error;
        code = 1;
        result.output += `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`;
      }
    } else {
      throw new Error(`${id}: step ${label} neither runs nor uses`);
    }
    const outcome = code === 0 ? 'success' : 'failure';
    if (step.id) contexts.steps[step.id] = { outputs: parseCommandFile(await readFile(outputFile, 'utf8')), outcome };
    Object.assign(jobEnv, parseCommandFile(await readFile(envFile, 'utf8')));
    for (const line of (await readFile(pathFile, 'utf8')).split('\n').filter(Boolean).reverse()) path = `${line}:${path}`;
    result.steps.push({ name: label, outcome, code });
    if (code !== 0) {
      result.output += `::error::${label}: exit code ${code}\n`;
      contexts.jobStatus = 'failure';
      result.result = 'failure';
    }
  }
  result.output += `\n::group::job summary\n${await readFile(summary, 'utf8')}`;
  await rm(temp, { recursive: true, force: true });
  return result;
}

const JOB_KEYS = new Set(['runs-on', 'environment', 'needs', 'env', 'strategy', 'steps', 'permissions', 'name']);
const STEP_KEYS = new Set(['id', 'name', 'if', 'run', 'uses', 'env', 'with']);

/** An action the runner does not stand in for, or an expression it does not know: the test must fail. */
class UnsupportedError extends Error {}

/**
 * The downloaded actions, stood in for; returns a directory to put first on PATH, if any.
 * Versions are ignored: the stand-ins do what every version of the action does for these inputs.
 */
async function standIn(
  uses: string,
  inputs: Record<string, string>,
  env: Record<string, string>,
  options: RunOptions,
  repo: string,
  owner: string,
): Promise<string | undefined> {
  const action = uses.replace(/@.*$/, '');
  const artifact = (name: string) => join(options.artifactsDir, String(options.runId), name);
  switch (action) {
    case 'actions/checkout':
    case 'actions/cache':
      // The workspace is the checkout; a cache miss is always a correct answer.
      return undefined;
    case 'actions/setup-node':
      return dirname(process.execPath);
    case 'actions/upload-artifact': {
      const name = required(inputs, 'name', uses);
      const source = required(inputs, 'path', uses);
      if (/[*?\n!]/.test(source)) throw new UnsupportedError(`${uses}: only a single path is stood in for, not ${JSON.stringify(source)}`);
      await rm(artifact(name), { recursive: true, force: true });
      await mkdir(artifact(name), { recursive: true });
      // One file keeps its name at the artifact's root; a directory's contents are the artifact.
      const from = join(options.workspace, source);
      if ((await stat(from)).isDirectory()) await cp(from, artifact(name), { recursive: true });
      else await cp(from, join(artifact(name), basename(source)));
      return undefined;
    }
    case 'actions/download-artifact': {
      const name = required(inputs, 'name', uses);
      await cp(artifact(name), join(options.workspace, inputs.path ?? '.'), { recursive: true });
      return undefined;
    }
    case 'actions/github-script': {
      const script = required(inputs, 'script', uses);
      const number = options.pullRequest ?? 0;
      await runGithubScript(script, options.github, env, options.workspace, { repo: { owner, repo }, issue: { number } });
      return undefined;
    }
    default:
      throw new UnsupportedError(`the workflow runner has no stand-in for ${uses}`);
  }
}

function required(inputs: Record<string, string>, name: string, uses: string): string {
  const value = inputs[name];
  if (value === undefined) throw new Error(`${uses}: the input ${name} is missing`);
  return value;
}

function shell(args: string[], cwd: string, env: Record<string, string>, timeout: number): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = execFile('bash', args, { cwd, env, timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : -1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
    child.stdin?.end();
  });
}

/** GITHUB_OUTPUT / GITHUB_ENV: `name=value` lines and `name<<DELIMITER` blocks. */
function parseCommandFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line === '') continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const body: string[] = [];
      for (index++; index < lines.length && lines[index] !== heredoc[2]; index++) body.push(lines[index]!);
      values[heredoc[1]!] = body.join('\n');
      continue;
    }
    const equals = line.indexOf('=');
    if (equals < 0) throw new Error(`a command file line is neither name=value nor name<<EOF: ${line}`);
    values[line.slice(0, equals)] = line.slice(equals + 1);
  }
  return values;
}

/** A step's `if:`: success() unless it says otherwise; `${{ }}` around it is optional. */
function condition(source: string | undefined, contexts: Contexts): boolean {
  if (source === undefined) return contexts.jobStatus === 'success';
  const expression = source.trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1');
  const usesStatus = /\b(success|failure|always|cancelled)\(\)/.test(expression);
  const value = truthy(evaluate(expression, contexts));
  return usesStatus ? value : value && contexts.jobStatus === 'success';
}

/** A string with `${{ }}` parts replaced by their values, as GitHub turns them into strings. */
function interpolate(text: string, contexts: Contexts): string {
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expression: string) => asString(evaluate(expression, contexts)));
}

type Value = string | number | boolean | null | Record<string, unknown>;

function asString(value: Value): string {
  if (value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function truthy(value: Value): boolean {
  return !(value === null || value === false || value === 0 || value === '');
}

/**
 * The expression language, only as far as the recipes use it: literals, context property paths,
 * `==` / `!=` (strings compared case-insensitively, as GitHub does), `!`, `&&`, `||`, parentheses,
 * hashFiles (a constant: the cache stand-in ignores keys) and the status functions.
 */
function evaluate(expression: string, contexts: Contexts): Value {
  const tokens: string[] = [];
  const lexer = /\s*('(?:[^']|'')*'|[A-Za-z_][\w-]*|\d+(?:\.\d+)?|==|!=|&&|\|\||[!().,])\s*/y;
  while (lexer.lastIndex < expression.length) {
    const match = lexer.exec(expression);
    if (!match) fail(expression, `cannot read it from ${JSON.stringify(expression.slice(lexer.lastIndex))}`);
    tokens.push(match[1]!);
  }
  let position = 0;
  const peek = () => tokens[position];
  const next = () => tokens[position++];
  const expect = (token: string) => {
    if (next() !== token) fail(expression, `expected ${token}`);
  };

  const or = (): Value => {
    let left = and();
    while (peek() === '||') {
      next();
      const right = and();
      left = truthy(left) ? left : right;
    }
    return left;
  };
  const and = (): Value => {
    let left = equality();
    while (peek() === '&&') {
      next();
      const right = equality();
      left = truthy(left) ? right : left;
    }
    return left;
  };
  const equality = (): Value => {
    let left = unary();
    while (peek() === '==' || peek() === '!=') {
      const operator = next();
      const right = unary();
      const equal = typeof left === 'string' && typeof right === 'string' ? left.toLowerCase() === right.toLowerCase() : left === right;
      left = operator === '==' ? equal : !equal;
    }
    return left;
  };
  const unary = (): Value => {
    if (peek() === '!') {
      next();
      return !truthy(unary());
    }
    return primary();
  };
  const primary = (): Value => {
    const token = next();
    if (token === undefined) fail(expression, 'it ends too early');
    if (token === '(') {
      const value = or();
      expect(')');
      return value;
    }
    if (token.startsWith("'")) return token.slice(1, -1).replace(/''/g, "'");
    if (/^\d/.test(token)) return Number(token);
    if (token === 'true' || token === 'false') return token === 'true';
    if (token === 'null') return null;
    if (peek() === '(') {
      next();
      const args: Value[] = [];
      while (peek() !== ')') {
        args.push(or());
        if (peek() === ',') next();
        else if (peek() !== ')') fail(expression, 'expected , or )');
      }
      next();
      return call(token, args);
    }
    let value = context(token);
    while (peek() === '.') {
      next();
      const key = next();
      if (key === undefined || !/^[A-Za-z_]/.test(key)) fail(expression, 'expected a property name');
      value = property(value, key, token);
    }
    return value;
  };
  const call = (name: string, args: Value[]): Value => {
    switch (name) {
      case 'hashFiles':
        return 'stand-in-hash';
      case 'success':
        return contexts.jobStatus === 'success';
      case 'failure':
        return contexts.jobStatus === 'failure';
      case 'always':
        return true;
      case 'cancelled':
        return false;
      default:
        return fail(expression, `the function ${name}(${args.length} arguments) is not supported`);
    }
  };
  const context = (name: string): Value => {
    switch (name) {
      case 'github':
        return contexts.github;
      case 'secrets':
        return contexts.secrets;
      case 'vars':
        return contexts.vars;
      case 'matrix':
        return contexts.matrix;
      case 'env':
        return contexts.env;
      case 'steps':
        return contexts.steps as unknown as Record<string, unknown>;
      default:
        return fail(expression, `the context ${name} is not supported`);
    }
  };
  const property = (value: Value, key: string, root: string): Value => {
    if (value === null || typeof value !== 'object') return null;
    const found = value[key];
    // A missing secret, variable or output is empty, as on GitHub; a missing github.* is a typo.
    if (found === undefined) return root === 'github' ? fail(expression, `github.${key} is not supported`) : null;
    return found as Value;
  };

  const value = or();
  if (position !== tokens.length) fail(expression, `unexpected ${tokens[position]}`);
  return value;
}

function fail(expression: string, why: string): never {
  throw new UnsupportedError(`the workflow runner cannot evaluate \${{${expression}}}: ${why}`);
}

/**
 * The `gh` CLI, as far as the apply workflow calls it, answering from FakeGitHub's state (the JSON
 * file FAKE_GH_STATE names); any other call fails loudly. `--jq` takes only `.key` / `.[n]` paths.
 */
const GH_STUB = (node: string) => `#!${node}
const fs = require('fs');
const path = require('path');
const state = JSON.parse(fs.readFileSync(process.env.FAKE_GH_STATE, 'utf8'));
const args = process.argv.slice(2);
const die = (message) => { process.stderr.write('gh (stand-in): ' + message + '\\n'); process.exit(1); };
if (process.env.GH_TOKEN !== state.token) die('HTTP 401: Bad credentials (GH_TOKEN)');
const flags = {};
const positional = [];
for (let i = 0; i < args.length; i++) {
  if (args[i].startsWith('--')) flags[args[i].slice(2)] = args[++i];
  else positional.push(args[i]);
}
const jq = (value) => {
  if (flags.jq === undefined) return JSON.stringify(value);
  const parts = flags.jq.match(/\\.\\[\\d+\\]|\\.[A-Za-z_]\\w*/g) || [];
  if (parts.join('') !== flags.jq) die('unsupported --jq ' + flags.jq);
  for (const part of parts) value = value == null ? null : value[part.startsWith('.[') ? Number(part.slice(2, -1)) : part.slice(1)];
  return value == null ? 'null' : typeof value === 'object' ? JSON.stringify(value) : String(value);
};
const repo = 'repos/' + state.repository + '/';
const [command, sub, target] = positional;
if (command === 'api' && positional.length === 2) {
  const endpoint = sub;
  if (!endpoint.startsWith(repo)) die('HTTP 404: ' + endpoint);
  const rest = endpoint.slice(repo.length);
  let match;
  if ((match = /^commits\\/([0-9a-f]{40})\\/pulls$/.exec(rest))) {
    console.log(jq((state.pullsOfCommit[match[1]] || []).map((number) => ({ number }))));
  } else if ((match = /^pulls\\/(\\d+)$/.exec(rest))) {
    const head = state.pullHeads[match[1]];
    if (head === undefined) die('HTTP 404: Not Found (' + endpoint + ')');
    console.log(jq({ number: Number(match[1]), head: { sha: head } }));
  } else die('unsupported endpoint ' + endpoint);
} else if (command === 'run' && sub === 'list' && positional.length === 2) {
  const runs = state.runs
    .filter((run) => (flags.workflow === undefined || run.workflow === flags.workflow) && (flags.commit === undefined || run.headSha === flags.commit) && (flags.status === undefined || run.status === flags.status))
    .sort((a, b) => b.databaseId - a.databaseId)
    .slice(0, flags.limit === undefined ? 20 : Number(flags.limit));
  if (flags.json !== 'databaseId') die('unsupported --json ' + flags.json);
  console.log(jq(runs.map((run) => ({ databaseId: run.databaseId }))));
} else if (command === 'run' && sub === 'download' && positional.length === 3 && flags.name !== undefined) {
  if (!/^\\d+$/.test(target)) die('invalid run id ' + JSON.stringify(target));
  const source = path.join(state.artifactsDir, target, flags.name);
  if (!fs.existsSync(source)) die('no artifact matches any of the names or patterns provided');
  // One named artifact is unpacked into the current directory, as gh does.
  fs.cpSync(source, process.cwd(), { recursive: true });
} else die('unsupported call: gh ' + args.join(' '));
`;

/** The files of a directory, for a test that asserts what an artifact held. */
export async function listArtifact(artifactsDir: string, runId: number, name: string): Promise<string[]> {
  return readdir(join(artifactsDir, String(runId), name)).catch(() => []);
}
