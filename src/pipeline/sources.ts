// Reads other environments of the project (promotion sources, history's provenance names), one
// session per environment, opened on first use. Read-only: only environments.get and agents.get.
import type { Project } from '../config/index.js';
import { ApiError, UserError } from '../errors.js';
import type { AgentVersionWithSlug } from '../model/api.js';
import type { SourceReader } from '../promotion/resolve.js';
import { openEnvironmentSession, type RunContext, type Session } from './session.js';

export class SourceSessions implements SourceReader {
  private readonly sessions = new Map<string, Promise<Session>>();
  private readonly environmentIds = new Map<string, Promise<string>>();
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
