// Where the stages meet for plan and apply: load the project, pick the environment, connect, read
// the live state, compute the plan. Each stage is a layer of its own; this file only sequences them.
import type { ControlApiClient } from '../api/client.js';
import type { Rpc } from '../api/operations.js';
import { desiredStateFor, environmentTargetFor, loadProject, pickEnvironment, type Project, type ProjectRoot, targetFromRoot } from '../config/index.js';
import { LocalPlanes } from '../connect/local-planes.js';
import { openConnection } from '../connect/open.js';
import { resolveTarget } from '../connect/resolve.js';
import { reconcileKeyTokenFiles } from '../engine/api-key-files.js';
import { computePlan } from '../engine/plan.js';
import { ApiError, UserError } from '../errors.js';
import type { AgentVersionWithSlug } from '../model/api.js';
import { resolvePromotions, type ResolvedPromotions, type SourceReader } from '../promotion/resolve.js';
import type { ActualResource, ActualState, DesiredState, EnvironmentTarget, Plan, ResourceAddress } from '../model/resources.js';
import { readActualState } from '../state/read.js';
import { readTokenFiles, type TokenFileSnapshot } from './token-files.js';
import type { GlobalOptions } from './global-options.js';

export interface PlanInputs {
  dir: string;
  environment?: string;
  prune?: boolean;
  allowMassDelete?: boolean;
  targets?: ResourceAddress[];
}

export interface Session {
  project: Project;
  desired: DesiredState;
  client: ControlApiClient;
  /** "the local control plane (.agentform/local)" or the URL. */
  targetLabel: string;
  isLocal: boolean;
  requests: Array<{ rpc: Rpc; status: number }>;
  /** The API key in use, if any: it must never be pruned by the run that uses it. */
  token?: string;
  /** The options the session was opened with (promotion sources reuse --debug, --insecure-http). */
  globals?: GlobalOptions;
  close(): Promise<void>;
}

export interface PlanRun extends Session {
  actual: ActualState;
  plan: Plan;
  /** By declared key name: its token file as the plan saw it (apply writes only over exactly that). */
  tokenFiles: Map<string, TokenFileSnapshot>;
  /** The scopes of the API key this run uses, when its record could be read; undefined: unknown. */
  credentialScopes?: string[];
}

export interface OpenOptions {
  /**
   * Read the live state while the resource files are still being parsed (plan, apply): the reads
   * start as soon as agentform.yaml names the environment, so their round trips cost no wall time.
   */
  prefetchState?: boolean;
}

/** The live state read ahead by openSession, taken (once) by planSession. */
const prefetchedStates = new WeakMap<Session, Promise<ActualState>>();

/** Loads the project and connects to the selected environment (starting the local control plane if asked). */
export async function openSession(inputs: PlanInputs, globals: GlobalOptions, env: NodeJS.ProcessEnv = process.env, options: OpenOptions = {}): Promise<Session> {
  let early: EarlyRead | undefined;
  try {
    const project = await loadProject(inputs.dir, options.prefetchState ? { onRoot: (root) => (early = startEarlyRead(root, inputs.environment, globals, env)) } : {});
    const environment = pickEnvironment(project, inputs.environment);
    const desired = desiredStateFor(project, environment, env);
    if (early && sameTarget(early.target, desired.target)) {
      const session: Session = { ...(await early.connection), project, desired };
      prefetchedStates.set(session, early.actual);
      early = undefined;
      return session;
    }
    await early?.discard();
    early = undefined;
    return await connect(project, desired, globals, env);
  } catch (error) {
    await early?.discard();
    throw error;
  }
}

interface EarlyRead {
  target: EnvironmentTarget;
  connection: Promise<Connection>;
  actual: Promise<ActualState>;
  discard(): Promise<void>;
}

/**
 * Connects and starts reading as soon as agentform.yaml is known to be valid. Only for remote
 * targets: starting the local control plane for a project that may turn out invalid would write
 * its data directory. Failures are kept for later: a problem in the configuration is reported
 * first, exactly as without the read-ahead.
 */
function startEarlyRead(root: ProjectRoot, requested: string | undefined, globals: GlobalOptions, env: NodeJS.ProcessEnv): EarlyRead | undefined {
  let target: EnvironmentTarget | undefined;
  try {
    target = targetFromRoot(root, pickEnvironment(root, requested), env);
    if (!target || resolveTarget(target, globals, env).url === 'local') return undefined;
  } catch {
    return undefined;
  }
  const slug = target.slug;
  const connection = openTargetConnection(root, target, globals, env);
  const actual = connection.then((opened) => readActualState(opened.client, slug));
  // Awaited later, or discarded: never an unhandled rejection meanwhile.
  connection.catch(() => undefined);
  actual.catch(() => undefined);
  return {
    target,
    connection,
    actual,
    // Never waits for the reads: against a server that is down they could be retrying for a minute.
    discard: async () => {
      const opened = await connection.catch(() => undefined);
      if (!opened) return;
      await opened.client.cancel();
      await actual.catch(() => undefined);
      await opened.close();
    },
  };
}

function sameTarget(a: EnvironmentTarget, b: EnvironmentTarget): boolean {
  return a.name === b.name && a.slug === b.slug && a.url === b.url && a.credential?.source === b.credential?.source && a.credential?.value === b.credential?.value;
}

/**
 * A session to one environment without its desired state (history, rollback, promotion sources):
 * its own URL and credential from agentform.yaml or AGENTFORM_URL_<ENV>/AGENTFORM_TOKEN_<ENV>. Needs
 * none of that environment's ${env:} values other than its token. --url and --token are for the
 * selected environment only: they are passed on only when `selected` is set.
 */
export async function openEnvironmentSession(project: Project, environment: string, globals: GlobalOptions, env: NodeJS.ProcessEnv = process.env, selected = false): Promise<Session> {
  if (!project.environments[environment]) throw new UserError(`unknown environment ${environment}`, `the project declares: ${Object.keys(project.environments).join(', ')}`);
  const target = environmentTargetFor(project, environment, env);
  const { url: _url, token: _token, ...otherGlobals } = globals;
  return connect(project, { projectDir: project.dir, target, resources: [] }, selected ? globals : otherGlobals, env);
}

/** One local control plane per data directory (a promotion reads another local environment while the target's session is open). */
const planes = new LocalPlanes();

/** Connects to the environment of `desired.target`; the key/environment guard runs before any request. */
export async function connect(project: Project, desired: DesiredState, globals: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Promise<Session> {
  return { ...(await openTargetConnection({ dir: desired.projectDir, environments: project.environments }, desired.target, globals, env)), project, desired };
}

type Connection = Omit<Session, 'project' | 'desired'>;

async function openTargetConnection(project: Pick<ProjectRoot, 'dir' | 'environments'>, target: EnvironmentTarget, globals: GlobalOptions, env: NodeJS.ProcessEnv): Promise<Connection> {
  const requests: Session['requests'] = [];
  const opened = await openConnection(
    { kind: 'environment', projectDir: project.dir, environments: project.environments, target },
    { flags: globals, env, planes, onRequest: (event) => requests.push({ rpc: event.rpc, status: event.status }) },
  );
  return { client: opened.client, targetLabel: opened.targetLabel, isLocal: opened.isLocal, requests, ...(opened.token ? { token: opened.token } : {}), globals, close: opened.close };
}

/**
 * Leaves out of the live state the API key this run authenticates with, unless the configuration
 * declares it: pruning it would revoke the credential in the middle of the run.
 */
export function withoutOwnKey(actual: ActualState, desired: DesiredState, token: string | undefined): ActualState {
  if (!token) return actual;
  const declared = new Set(desired.resources.filter((resource) => resource.kind === 'apiKey').map((resource) => resource.name));
  const isOwn = (resource: ActualResource) => isKeyOfToken(resource, token) && !declared.has(resource.name);
  return { ...actual, resources: actual.resources.filter((resource) => !isOwn(resource)) };
}

/**
 * Reads other environments of the project (promotion sources), one session per environment,
 * opened on first use. Read-only: only environments.get and agents.get are called.
 */
export class SourceSessions implements SourceReader {
  private readonly sessions = new Map<string, Promise<Session>>();
  private readonly environmentIds = new Map<string, Promise<string>>();
  constructor(
    private readonly project: Project,
    private readonly globals: GlobalOptions,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  session(environment: string): Promise<Session> {
    let session = this.sessions.get(environment);
    if (!session) {
      session = openEnvironmentSession(this.project, environment, this.globals, this.env);
      this.sessions.set(environment, session);
    }
    return session;
  }

  environmentId(environment: string): Promise<string> {
    let id = this.environmentIds.get(environment);
    if (!id) {
      const slug = this.project.environments[environment]?.slug ?? environment;
      id = this.session(environment).then(async (session) => (await session.client.call('environments.get', { slug })).id);
      this.environmentIds.set(environment, id);
    }
    return id;
  }

  async agent(environment: string, slug: string, version?: number): Promise<AgentVersionWithSlug> {
    const session = await this.session(environment);
    try {
      return await session.client.call('agents.get', { slug, ...(version !== undefined ? { version } : {}) });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') {
        throw new UserError(`environment ${environment} has no agent ${slug}${version !== undefined ? ` version ${version}` : ''}`, 'check the version: agentform history ' + slug + ' -e ' + environment);
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    const sessions = await Promise.allSettled(this.sessions.values());
    for (const result of sessions) if (result.status === 'fulfilled') await result.value.close();
    this.sessions.clear();
  }
}

export async function planSession(session: Session, inputs: PlanInputs, globals: GlobalOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<PlanRun> {
  const prefetched = prefetchedStates.get(session);
  prefetchedStates.delete(session);
  const read = await (prefetched ?? readActualState(session.client, session.desired.target.slug));
  const credentialScopes = ownKeyOf(read, session.token)?.spec.scopes;
  const unreconciled = withoutOwnKey(read, session.desired, session.token);
  // Declarative promotion: promoted agents become the source version's definition before diffing.
  const sources = new SourceSessions(session.project, session.globals ?? globals, env);
  let promoted: ResolvedPromotions;
  try {
    promoted = await resolvePromotions(session.project, session.desired, unreconciled, sources);
  } finally {
    await sources.close();
  }
  // Which live key each token file belongs to decides no-op or replace, and which duplicate stays.
  const tokenFiles = await readTokenFiles(promoted.desired);
  const { desired, actual } = reconcileKeyTokenFiles(promoted.desired, unreconciled, {
    files: new Map([...tokenFiles].map(([name, file]) => [name, file.content])),
    ...(session.token ? { ownToken: session.token } : {}),
  });
  const plan = computePlan(desired, actual, {
    prune: inputs.prune ?? session.desired.target.prune,
    allowMassDelete: inputs.allowMassDelete ?? false,
    ...(session.desired.target.maxDeleteShare !== undefined ? { maxDeleteShare: session.desired.target.maxDeleteShare } : {}),
    ...(inputs.targets && inputs.targets.length > 0 ? { targets: inputs.targets } : {}),
  });
  plan.warnings.push(...promoted.warnings);
  return { ...session, desired, actual, plan, tokenFiles, ...(Array.isArray(credentialScopes) ? { credentialScopes: credentialScopes.map(String) } : {}) };
}

/** The record of the API key whose token this run uses, found by its prefix (like whoami). */
function ownKeyOf(actual: ActualState, token: string | undefined): ActualResource | undefined {
  return token ? actual.resources.find((resource) => isKeyOfToken(resource, token)) : undefined;
}

function isKeyOfToken(resource: ActualResource, token: string): boolean {
  const prefix = resource.remote.prefix;
  return resource.kind === 'apiKey' && typeof prefix === 'string' && prefix.length > 0 && token.startsWith(prefix);
}

/** True when an RPC writes. A plan must never make one. */
export function isWrite(rpc: Rpc): boolean {
  return !/\.(list|get|models|events|pending)$/.test(rpc);
}
