// agentform history AGENT -e ENV: every version, newest first, read with bounded concurrency.
import { resolve } from 'node:path';
import { loadProject } from '../../../config/index.js';
import { UserError } from '../../../errors.js';
import type { AgentVersionWithSlug } from '../../../model/api.js';
import type { GlobalOptions } from '../../global-options.js';
import { renderHistory, type HistoryRow } from '../../../render/history.js';
import { printJson } from '../../terminal.js';
import { pickEnvironment } from '../../../config/index.js';
import { openEnvironmentSession, runContext } from '../../../pipeline/session.js';
import { SourceSessions } from '../../../pipeline/sources.js';
import type { HistoryCommandOptions } from './options.js';
import { mapBounded } from '../../../util/map-bounded.js';
import { latestAgentVersion as latestOrNone } from '../../../state/agents.js';

const CONCURRENCY = 8;

export async function runHistory(agent: string, options: HistoryCommandOptions, globals: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const project = await loadProject(resolve(options.dir ?? '.'));
  const environment = pickEnvironment(project, options.env);
  const run = runContext(globals, env);
  const session = await openEnvironmentSession(project, environment, run, true);
  const others = new SourceSessions(project, run);
  try {
    const latest = await latestOrNone(session.client, agent);
    if (!latest) throw new UserError(`environment ${environment} has no agent ${agent}`);
    const numbers = Array.from({ length: latest.version }, (_, index) => latest.version - index);
    const versions = await mapBounded(numbers, CONCURRENCY, (version) =>
      version === latest.version ? Promise.resolve(latest) : session.client.call('agents.get', { slug: agent, version }),
    );
    const sourceNames = await provenanceNames(versions, project.environments, environment, others);
    const rows: HistoryRow[] = versions.map((version) => ({
      version: version.version,
      createdAt: version.createdAt ?? null,
      image: version.image?.status ?? null,
      promotedFrom: version.promotedFrom ? { ...version.promotedFrom, environment: sourceNames.get(version.promotedFrom.environmentId) ?? null } : null,
    }));
    if (options.json) {
      printJson({ environment, agent, versions: rows });
      return;
    }
    process.stdout.write(`${renderHistory(agent, rows)}\n`);
  } finally {
    await others.close();
    await session.close();
  }
}

/**
 * Environment id → agentform name, for the ids that occur. Best effort: an environment that cannot
 * be reached (no credential here) is shown by id.
 */
async function provenanceNames(
  versions: AgentVersionWithSlug[],
  environments: Record<string, unknown>,
  current: string,
  others: SourceSessions,
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (!versions.some((version) => version.promotedFrom)) return names;
  await Promise.all(
    Object.keys(environments)
      .filter((name) => name !== current)
      .map(async (name) => {
        try {
          names.set(await others.environmentId(name), name);
        } catch {
          // Not reachable from here: the id is printed instead.
        }
      }),
  );
  return names;
}
