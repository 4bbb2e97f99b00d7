// agentform diff-envs A B: read the agents of two environments of a project, one after the other
// (two local environments share one data directory, so never two local servers at once), and
// show the difference with the plan renderer plus each version's provenance.
import { resolve } from 'node:path';
import { UserError } from '../../../errors.js';
import { specSchemas } from '../../../config/schemas.js';
import { compareEnvironments, comparisonSummary, provenanceLines, type EnvironmentAgents } from '../../../export/compare.js';
import { renderPlanText } from '../../../render/text.js';
import { readActualState } from '../../../state/read.js';
import type { GlobalOptions } from '../../global-options.js';
import { useColor } from '../../terminal.js';
import { openSession, runContext } from '../../../pipeline/session.js';
import type { DiffEnvsCommandOptions } from './options.js';
import { changeCount } from '../../../model/resources.js';

interface Read extends EnvironmentAgents {
  /** Environment id → agentform name, from environments.list when the server offers it. */
  names: Map<string, string>;
}

async function readAgents(dir: string, environment: string, globals: GlobalOptions): Promise<Read> {
  const session = await openSession({ dir, environment }, runContext(globals));
  try {
    const { name, slug } = session.desired.target;
    const actual = await readActualState(session.client, slug, ['environment', 'agent']);
    const slugToName = new Map(Object.values(session.project.environments).map((target) => [target.slug, target.name]));
    const names = new Map<string, string>();
    try {
      for (const remote of await session.client.call('environments.list', {})) names.set(remote.id, slugToName.get(remote.slug) ?? remote.slug);
    } catch {
      // environments.list is an assumed operation: without it, ids of other environments stay ids.
    }
    return { name, slug, actual, names };
  } finally {
    await session.close();
  }
}

export async function runDiffEnvs(a: string, b: string, options: DiffEnvsCommandOptions, globals: GlobalOptions): Promise<number> {
  if (a === b) throw new UserError(`diff-envs compares two different environments, got ${a} twice`);
  if (globals.url || globals.token)
    throw new UserError(
      'diff-envs reads two environments: --url and --token would apply to both',
      'set AGENTFORM_URL_<ENV> / AGENTFORM_TOKEN_<ENV> per environment instead',
    );
  const dir = resolve(options.dir ?? '.');
  const left = await readAgents(dir, a, globals);
  const right = await readAgents(dir, b, globals);
  const comparison = compareEnvironments(left, right, new Map([...left.names, ...right.names]), specSchemas().agent);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ a, b, plan: comparison.plan, provenance: comparison.provenance }, null, 2)}\n`);
  } else {
    const rendered = renderPlanText(comparison.plan, { color: useColor(globals) }).split('\n');
    // The renderer's last line is the plan summary ("Plan: 1 to add ..."); a comparison has its own.
    const body = rendered.slice(0, -1);
    const out = [
      `Comparing the agents of ${a} (as desired) with ${b} (as actual): ~ shows ${b}'s value → ${a}'s, + only in ${a}, - only in ${b}.`,
      '',
      ...body,
      ...provenanceLines(comparison, a, b),
      '',
      comparisonSummary(comparison, a, b),
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  }
  return options.detailedExitcode && changeCount(comparison.plan) > 0 ? 2 : 0;
}
