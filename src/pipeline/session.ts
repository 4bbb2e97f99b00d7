// Opening a plan/apply session: load the project, pick the environment, build its desired state,
// connect. The "open" half of the pipeline; plan.ts is the "plan" half. No module state: the
// read-ahead lives on the session it belongs to, and local planes in the run's registry.
import type { ControlApiClient } from '../api/client.js';
import { desiredStateFor, environmentTargetFor, loadProject, pickEnvironment, type Project, type ProjectRoot, targetFromRoot } from '../config/index.js';
import { LocalPlanes } from '../connect/local-planes.js';
import { type ClientFlags, openConnection } from '../connect/open.js';
import { LOCAL_URL, resolveTarget, type Variables } from '../connect/resolve.js';
import { UserError } from '../errors.js';
import type { ActualState, DesiredState, EnvironmentTarget } from '../model/resources.js';
import { readActualState } from '../state/read.js';

/** What one command run shares between its connections: flags, variables, and its local planes. */
export interface RunContext {
  flags: ClientFlags;
  env: Variables;
  /** One local control plane per data directory for the whole run (a promotion reads another local environment while the target's session is open). */
  planes: LocalPlanes;
}

export function runContext(flags: ClientFlags, env: Variables = process.env): RunContext {
  return { flags, env, planes: new LocalPlanes() };
}

/** What to open. */
export interface OpenInputs {
  dir: string;
  environment?: string;
  /**
   * Read the live state while the resource files are still being parsed (plan, apply): the reads
   * start as soon as agentform.yaml names the environment, so their round trips cost no wall time.
   */
  readAhead?: boolean;
}

export interface Session {
  project: Project;
  desired: DesiredState;
  client: ControlApiClient;
  /** LOCAL_LABEL or the URL. */
  targetLabel: string;
  isLocal: boolean;
  /** The API key in use, if any: it must never be pruned by the run that uses it. */
  token?: string;
  /** The run this session belongs to (promotion sources connect through it). */
  run: RunContext;
  /** The live state read ahead while the project was parsed, if any; handed out once. */
  takeReadAhead(): Promise<ActualState> | undefined;
  close(): Promise<void>;
}

type Connection = Omit<Session, 'project' | 'desired' | 'takeReadAhead'>;

/** Loads the project and connects to the selected environment (starting the local control plane if asked). */
export async function openSession(inputs: OpenInputs, run: RunContext): Promise<Session> {
  let early: EarlyRead | undefined;
  try {
    const project = await loadProject(inputs.dir, {
      ...(inputs.environment !== undefined ? { environment: inputs.environment } : {}),
      ...(inputs.readAhead ? { onRoot: (root: ProjectRoot) => (early = startEarlyRead(root, inputs.environment, run)) } : {}),
    });
    const environment = pickEnvironment(project, inputs.environment);
    const desired = desiredStateFor(project, environment, run.env);
    if (early && sameTarget(early.target, desired.target)) {
      let readAhead: Promise<ActualState> | undefined = early.actual;
      const connection = await early.connection;
      early = undefined;
      return {
        ...connection,
        project,
        desired,
        takeReadAhead: () => {
          const taken = readAhead;
          readAhead = undefined;
          return taken;
        },
      };
    }
    await early?.discard();
    early = undefined;
    return await connect(project, desired, run);
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
function startEarlyRead(root: ProjectRoot, requested: string | undefined, run: RunContext): EarlyRead | undefined {
  let target: EnvironmentTarget | undefined;
  try {
    target = targetFromRoot(root, pickEnvironment(root, requested), run.env);
    if (!target || resolveTarget(target, run.flags, run.env).url === LOCAL_URL) return undefined;
  } catch {
    return undefined;
  }
  const slug = target.slug;
  const connection = openTargetConnection(root, target, run);
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
  return (
    a.name === b.name && a.slug === b.slug && a.url === b.url && a.credential?.source === b.credential?.source && a.credential?.value === b.credential?.value
  );
}

/**
 * A session to one environment without its desired state (history, rollback, promotion sources):
 * its own URL and credential from agentform.yaml or AGENTFORM_URL_<ENV>/AGENTFORM_TOKEN_<ENV>. Needs
 * none of that environment's ${env:} values other than its token. --url and --token are for the
 * selected environment only: they are passed on only when `selected` is set.
 */
export async function openEnvironmentSession(project: Project, environment: string, run: RunContext, selected = false): Promise<Session> {
  if (!project.environments[environment])
    throw new UserError(`unknown environment ${environment}`, `the project declares: ${Object.keys(project.environments).join(', ')}`).withCode(
      'unknown_environment',
    );
  const target = environmentTargetFor(project, environment, run.env);
  const { url: _url, token: _token, ...otherFlags } = run.flags;
  return connect(project, { projectDir: project.dir, target, resources: [] }, selected ? run : { ...run, flags: otherFlags });
}

/** Connects to the environment of `desired.target`; the key/environment guard runs before any request. */
export async function connect(project: Project, desired: DesiredState, run: RunContext): Promise<Session> {
  const connection = await openTargetConnection({ dir: desired.projectDir, environments: project.environments }, desired.target, run);
  return { ...connection, project, desired, takeReadAhead: () => undefined };
}

async function openTargetConnection(project: Pick<ProjectRoot, 'dir' | 'environments'>, target: EnvironmentTarget, run: RunContext): Promise<Connection> {
  const opened = await openConnection(
    { kind: 'environment', projectDir: project.dir, environments: project.environments, target },
    { flags: run.flags, env: run.env, planes: run.planes },
  );
  return {
    client: opened.client,
    targetLabel: opened.targetLabel,
    isLocal: opened.isLocal,
    ...(opened.token ? { token: opened.token } : {}),
    run,
    close: opened.close,
  };
}
