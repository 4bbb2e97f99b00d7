// The configuration layer: a project directory → checked Project → DesiredState per environment.
//   loadProject(dir)              reads and checks everything that does not depend on the
//                                 process environment; throws ProblemsError with ALL problems.
//   validateProject(dir, opts)    every problem, including unset ${env:} for each environment a
//                                 resource exists in (or only opts.environment); never throws.
//                                 Write-only values are never needed (pull-request jobs have no
//                                 secrets): apply's preflight reports those that are missing.
//   desiredStateFor(project, env) overlays + interpolation for one environment, write-only
//                                 values resolved (left without `value` when their variable is
//                                 unset); throws ProblemsError when anything else is missing.
//   declaredAddresses(project, env) what one environment declares, leniently (`--base`).
//   locateSpecValue(...)          where a spec value is written, for problems found elsewhere
//                                 (`validate --remote`, src/pipeline/remote-checks.ts).
import { relative, resolve } from 'node:path';
import { ProblemsError, type SourceLocation } from '../errors.js';
import { addressOf, type DesiredResource, type DesiredState, type EnvironmentTarget, type ResourceAddress } from '../model/resources.js';
import { buildEnvironment, type DanglingReference, environmentTarget, type TokenFileUse } from './build.js';
import { type Problem, ProblemList } from './problems.js';
import { pickEnvironment } from './environment-select.js';
import { checkIgnoreRules } from './ignore-rules.js';
import { checkProject } from './project-checks.js';
import { checkOwnership } from './ownership.js';
import { checkChangeWindows } from './change-windows.js';
import { type Project, type ProjectRoot, type ReadHooks, readProject } from './project.js';
import type { PathSegment } from './problems.js';
import { didYouMean } from './suggest.js';
import { specLayer } from './templates.js';

export type { Problem } from './problems.js';
export type { Project, ProjectEnvironment, ProjectRoot, ReadHooks, ResourceDocument } from './project.js';
export { environmentsOf } from './project-checks.js';
export { ignoreRulesOf } from './ignore-rules.js';
export { changeWindowsOf } from './change-windows.js';
export { pickEnvironment } from './environment-select.js';

export interface ValidateOptions {
  /** The process environment for ${env:}; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Check only this environment (validate -e). */
  environment?: string;
  /**
   * Once the project is valid, more problems of each environment checked, from its build (validate:
   * the policy rules' errors), so that nothing is parsed or built twice.
   */
  judge?: (project: Project, environment: string, state: DesiredState) => Problem[];
  /** Today as YYYY-MM-DD, for the `until` of ignore rules; default: the UTC date of this machine. */
  today?: string;
}

/**
 * An environment built while the project was checked (loadProject), kept for desiredStateFor: the
 * same build with the same process environment, whose unset ${env:} were set aside rather than
 * reported. Taken once; a second desiredStateFor of the environment builds it again.
 */
interface BuiltEnvironment {
  state: DesiredState;
  processEnv: NodeJS.ProcessEnv;
  deferredEnvProblems: ProblemList;
  dangling: DanglingReference[];
}
const builtEnvironments = new WeakMap<Project, Map<string, BuiltEnvironment>>();

/** Reads the project and runs every check that does not need ${env:} values. */
async function check(
  dir: string,
  processEnv: NodeJS.ProcessEnv,
  checkEnv: boolean,
  only?: string,
  hooks: LoadOptions = {},
  checkedStates?: Map<string, DesiredState>,
  today?: string,
): Promise<{ project?: Project; problems: ProblemList }> {
  const problems = new ProblemList();
  const project = await readProject(resolve(dir), problems, hooks);
  if (!project) return { problems };
  checkProject(project, problems);
  checkOwnership(project, problems);
  checkIgnoreRules(project, problems, today);
  checkChangeWindows(project, problems);
  const names = Object.keys(project.environments);
  if (only !== undefined && !project.environments[only]) {
    problems.error(`unknown environment "${only}"${didYouMean(only, names)} (agentform.yaml declares ${names.join(', ') || 'none'})`, {
      file: project.rootFile,
      line: 1,
      col: 1,
    });
    return { project, problems };
  }
  const fileCache = new Map<string, string | null>();
  const dangling: DanglingReference[] = [];
  const tokenFiles: TokenFileUse[] = [];
  const built = new Map<string, BuiltEnvironment>();
  // Only the environment the command will plan is kept (the others' builds are garbage at once).
  let keep: string | undefined;
  try {
    keep = pickEnvironment(project, hooks.environment);
  } catch {
    keep = undefined;
  }
  // Token files are compared across every environment even for `validate -e`: two environments
  // writing one file would overwrite each other's key token.
  for (const environment of names) {
    const checked = only === undefined || environment === only;
    const deferredEnvProblems = checkEnv ? undefined : new ProblemList();
    const ownDangling: DanglingReference[] = [];
    const state = buildEnvironment(
      project,
      environment,
      { processEnv, checkEnv: checked && checkEnv, ...(deferredEnvProblems ? { deferredEnvProblems } : {}), checkWriteOnlyEnv: false, fileCache, tokenFiles },
      checked ? problems : new ProblemList(),
      ownDangling,
    );
    if (checked) dangling.push(...ownDangling);
    if (checked) checkedStates?.set(environment, state);
    if (deferredEnvProblems && environment === keep) built.set(environment, { state, processEnv, deferredEnvProblems, dangling: ownDangling });
  }
  builtEnvironments.set(project, built);
  // With a file unread, a reference may well point into it: its syntax error is the one to fix first.
  if (project.unreadFiles.length === 0) reportDangling(dangling, only !== undefined, problems);
  reportSharedTokenFiles(tokenFiles, project.dir, only, problems);
  return { project, problems };
}

/**
 * Two API keys (two resources, or one resource in two environments) whose token goes to one file:
 * each apply would overwrite the other key's token, and the overwritten key is left without one.
 */
function reportSharedTokenFiles(uses: TokenFileUse[], projectDir: string, only: string | undefined, problems: ProblemList): void {
  const byPath = new Map<string, TokenFileUse[]>();
  for (const use of uses) if (use.path !== undefined) byPath.set(use.path, [...(byPath.get(use.path) ?? []), use]);
  for (const [path, group] of byPath) {
    if (group.length < 2) continue;
    const environmentsOf = new Map<string, string[]>();
    for (const use of group) environmentsOf.set(use.address, [...(environmentsOf.get(use.address) ?? []), use.environment]);
    const sharedBy = [...environmentsOf].map(([address, environments]) => `${address} (${environments.join(', ')})`);
    const message = `tokenFile ${relative(projectDir, path) || path} is shared by ${sharedBy.join(' and ')}: each apply would overwrite the other key's token; give every key and environment its own file (e.g. with an overlay per environment)`;
    for (const use of group) {
      if (only === undefined || use.environment === only) problems.error(message, use.location, use.jsonPath);
    }
  }
}

/** One problem per dangling reference, naming the environments only when it dangles in some of them. */
function reportDangling(dangling: DanglingReference[], singleEnvironment: boolean, problems: ProblemList): void {
  const groups = new Map<string, DanglingReference[]>();
  for (const item of dangling) {
    const key = `${item.location.file}:${item.location.line}:${item.location.col}|${item.target.kind}/${item.target.name}`;
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  for (const group of groups.values()) {
    const first = group[0] as DanglingReference;
    const environments = [...new Set(group.map((item) => item.environment))];
    const everywhere = singleEnvironment || environments.length >= first.environmentsOfReferrer;
    const candidates = [...new Set(group.flatMap((item) => item.candidates))];
    const where = everywhere ? '' : ` in environment${environments.length === 1 ? '' : 's'} ${environments.join(', ')}`;
    problems.error(
      `${first.target.kind} "${first.target.name}" is not declared${where}${didYouMean(first.target.name, candidates)}`,
      first.location,
      first.path,
    );
  }
}

export function relativeToCwd(project: string, location: SourceLocation | undefined): SourceLocation | undefined {
  if (!location) return undefined;
  return { ...location, file: relative(process.cwd(), resolve(project, location.file)) || location.file };
}

export function throwIfErrors(dir: string, problems: ProblemList, what: string): void {
  const errors = problems.sorted().filter((problem) => problem.severity === 'error');
  if (errors.length === 0) return;
  throw new ProblemsError(
    `${what}: ${errors.length} problem${errors.length === 1 ? '' : 's'} (run agentform validate for details)`,
    errors.map((problem) => {
      const location = relativeToCwd(dir, problem.location);
      return { message: problem.jsonPath ? `${problem.jsonPath}: ${problem.message}` : problem.message, ...(location ? { location } : {}) };
    }),
  );
}

/** `hooks.onRoot` lets a caller connect while the resource files are still being read. */
/**
 * Where a value of a resource's spec is written for one environment: in the environment's overlay
 * when it sets that value, else in the document's `spec` or the template that gave it (a path within the spec, e.g. ['model', 'model']).
 * Finds the resource's document by an index built once: a review locates a finding per resource.
 */
export function specLocator(
  project: Project,
  environment: string,
): (resource: Pick<DesiredResource, 'kind' | 'name'>, path: readonly PathSegment[]) => SourceLocation | undefined {
  const documents = new Map<string, Project['documents'][number]>();
  for (const document of project.documents) {
    const key = `${document.kind.toLowerCase()}/${document.name}`;
    if (!documents.has(key)) documents.set(key, document);
  }
  return (resource, path) => {
    const document = documents.get(`${resource.kind.toLowerCase()}/${resource.name}`);
    if (!document) return undefined;
    // The spec as a whole (a required field missing, say) is the document's `spec:` key, even when an
    // overlay sets something in it.
    if (path.length === 0) return document.source.locate(['spec'], 'key');
    const layer = specLayer(document, environment, path);
    return layer.source.locate(layer.path);
  };
}

/** specLocator for a single lookup. */
export function locateSpecValue(
  project: Project,
  environment: string,
  resource: Pick<DesiredResource, 'kind' | 'name'>,
  path: readonly PathSegment[],
): SourceLocation | undefined {
  return specLocator(project, environment)(resource, path);
}

export interface LoadOptions extends ReadHooks {
  /** The environment the caller will ask desiredStateFor for (-e; default: the project's default or only one). */
  environment?: string;
}

export async function loadProject(dir: string, hooks: LoadOptions = {}): Promise<Project> {
  const { project, problems } = await check(dir, process.env, false, undefined, hooks);
  throwIfErrors(resolve(dir), problems, 'the configuration is invalid');
  return project as Project;
}

/** Every problem of the project, sorted by file and position. Locations are relative to `dir`. */
export async function validateProject(dir: string, opts: ValidateOptions = {}): Promise<Problem[]> {
  try {
    const states = opts.judge ? new Map<string, DesiredState>() : undefined;
    const { project, problems } = await check(dir, opts.env ?? process.env, true, opts.environment, {}, states, opts.today);
    const sorted = problems.sorted();
    if (!project || !opts.judge || sorted.some((problem) => problem.severity === 'error')) return sorted;
    for (const [environment, state] of states ?? []) sorted.push(...opts.judge(project, environment, state));
    return sorted;
  } catch (error) {
    // A bug, not bad input: still an answer, never a crash of the caller.
    const problem: Problem = {
      severity: 'error',
      message: `internal error while validating: ${error instanceof Error ? error.message : String(error)}`,
      location: { file: 'agentform.yaml', line: 1, col: 1 },
    };
    return [problem];
  }
}

export function desiredStateFor(project: Project, environment: string, env: NodeJS.ProcessEnv = process.env): DesiredState {
  const kept = builtEnvironments.get(project);
  const prebuilt = kept?.get(environment);
  kept?.delete(environment);
  let state: DesiredState;
  let problems: ProblemList;
  let dangling: DanglingReference[];
  if (prebuilt && prebuilt.processEnv === env) {
    // loadProject found no error in this build, so its errors are exactly the ones set aside.
    ({ state, dangling } = prebuilt);
    problems = prebuilt.deferredEnvProblems;
  } else {
    problems = new ProblemList();
    dangling = [];
    // A write-only value whose variable is unset stays without `value`: a plan does not need it, and
    // apply stops with a clear message before sending anything without it.
    state = buildEnvironment(project, environment, { processEnv: env, checkEnv: true, checkWriteOnlyEnv: false, fileCache: new Map() }, problems, dangling);
  }
  reportDangling(dangling, true, problems);
  throwIfErrors(project.dir, problems, `the configuration of environment ${environment} is incomplete`);
  return state;
}

/** What a value read from an unset ${env:} holds in comparisonStateFor's build: unknown, not empty. */
export const UNSET_ENV = '\u0000unset ${env:}\u0000';

/**
 * An environment's configuration as another environment's review compares with it
 * (`policy.plan.modelsFrom`): built without its `${env:}` values, since a production job lacks
 * staging's variables; a string that reads an unset one contains UNSET_ENV. Builds afresh (never
 * takes the environment loadProject kept for desiredStateFor). Throws on any other problem.
 */
export function comparisonStateFor(project: Project, environment: string, env: NodeJS.ProcessEnv = process.env): DesiredState {
  if (!project.environments[environment]) throw new Error(`there is no environment ${environment}`);
  const problems = new ProblemList();
  const options = { processEnv: env, checkEnv: false, unsetEnv: UNSET_ENV, checkWriteOnlyEnv: false, fileCache: new Map<string, string | null>() };
  const state = buildEnvironment(project, environment, options, problems, []);
  throwIfErrors(project.dir, problems, `the configuration of environment ${environment} is incomplete`);
  return state;
}

function targetWithProblems(root: ProjectRoot, environment: string, env: NodeJS.ProcessEnv): { target: EnvironmentTarget; problems: ProblemList } {
  const problems = new ProblemList();
  const target = environmentTarget(root, environment, { processEnv: env, checkEnv: true, checkWriteOnlyEnv: false, fileCache: new Map() }, problems);
  return { target, problems };
}

/**
 * One environment's target (URL with `${env:}`/`${var:}` filled in, credential) from agentform.yaml
 * alone: needs none of the environment's other `${env:}` values. Throws when the URL cannot be resolved.
 */
export function environmentTargetFor(root: ProjectRoot, environment: string, env: NodeJS.ProcessEnv = process.env): EnvironmentTarget {
  const { target, problems } = targetWithProblems(root, environment, env);
  throwIfErrors(root.dir, problems, `the configuration of environment ${environment} is incomplete`);
  return target;
}

/**
 * The target of one environment from agentform.yaml alone, or undefined when it cannot be known
 * without problems (then the caller waits for the whole project and its located messages).
 */
export function targetFromRoot(root: ProjectRoot, environment: string, env: NodeJS.ProcessEnv = process.env): EnvironmentTarget | undefined {
  if (!root.environments[environment]) return undefined;
  const { target, problems } = targetWithProblems(root, environment, env);
  return problems.hasErrors ? undefined : target;
}

/**
 * The addresses a project declares for one environment, for comparing with another revision of it
 * (`--base`): built leniently (unset variables and dangling references are not errors here, the
 * names are what counts). Undefined when the project has no such environment.
 */
export function declaredAddresses(project: Project, environment: string, env: NodeJS.ProcessEnv = process.env): Set<ResourceAddress> | undefined {
  if (!project.environments[environment]) return undefined;
  const options = { processEnv: env, checkEnv: false, checkWriteOnlyEnv: false, fileCache: new Map<string, string | null>() };
  const state = buildEnvironment(project, environment, options, new ProblemList(), []);
  return new Set(state.resources.map((resource) => addressOf(resource.kind, resource.name)));
}
