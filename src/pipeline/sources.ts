// Reads other environments of the project (promotion sources, history's provenance names), one
// session per environment, opened on first use. Read-only: only environments.get and agents.get.
import { desiredStateFor, type Project } from '../config/index.js';
import type { DesiredState, JsonObject } from '../model/resources.js';
import { withKnownDefinition } from './known-definition.js';
import { ApiError, UserError } from '../errors.js';
import type { AgentVersionWithSlug } from '../model/api.js';
import type { SourceReader } from '../promotion/resolve.js';
import { openEnvironmentSession, type RunContext, type Session } from './session.js';

export class SourceSessions implements SourceReader {
  private readonly sessions = new Map<string, Promise<Session>>();
  private readonly environmentIds = new Map<string, Promise<string>>();
  private readonly configurations = new Map<string, DesiredState | undefined>();
  /** Fields of versions read that agentform does not know, by `environment slug vN` (not written). */
  readonly unknownFields = new Map<string, string[]>();
  constructor(
    private readonly project: Project,
    private readonly run: RunContext,
  ) {}

  session(environment: string): Promise<Session> {
    let session = this.sessions.get(environment);
    if (!session) {
      session = openEnvironmentSession(this.project, environment, this.run);
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

  /** Versions read as promote writes them (known fields only); the fields left out, by agent. */
  async agent(environment: string, slug: string, version?: number): Promise<AgentVersionWithSlug> {
    const session = await this.session(environment);
    try {
      const known = withKnownDefinition(await session.client.call('agents.get', { slug, ...(version !== undefined ? { version } : {}) }));
      if (known.unknown.length > 0) this.unknownFields.set(`${environment} ${slug} v${known.version.version}`, known.unknown);
      return known.version;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') {
        throw new UserError(
          `environment ${environment} has no agent ${slug}${version !== undefined ? ` version ${version}` : ''}`,
          `check the version: agentform history ${slug} -e ${environment}`,
        );
      }
      throw error;
    }
  }

  /**
   * The environment's configuration of an agent (not a `promote:` one, whose definition is another
   * environment's): undefined when not declared, or when the configuration cannot be built here
   * (an unset variable): the version is then judged whole.
   */
  configured(environment: string, slug: string): JsonObject | undefined {
    if (!this.configurations.has(environment)) {
      let desired: DesiredState | undefined;
      try {
        desired = desiredStateFor(this.project, environment, this.run.env);
      } catch {
        desired = undefined;
      }
      this.configurations.set(environment, desired);
    }
    const agent = this.configurations.get(environment)?.resources.find((resource) => resource.kind === 'agent' && resource.name === slug);
    return agent && !agent.promotion ? agent.spec : undefined;
  }

  async close(): Promise<void> {
    const sessions = await Promise.allSettled(this.sessions.values());
    for (const result of sessions) if (result.status === 'fulfilled') await result.value.close();
    this.sessions.clear();
  }
}
