import { resolve } from 'node:path';
import { desiredStateFor, loadProject, pickEnvironment } from '../../../config/index.js';
import { computePlan } from '../../../engine/plan.js';
import { GRAPH_FORMATS, type GraphNode, graphNodesOf } from '../../../render/graph.js';
import type { GraphCommandOptions } from './options.js';

export async function runGraph(dir: string, options: GraphCommandOptions): Promise<void> {
  const nodes = await configurationGraph(dir, options.env);
  process.stdout.write(`${GRAPH_FORMATS[options.json ? 'json' : options.format](nodes)}\n`);
}

/** The resources of an environment's configuration and what each depends on (also the MCP `graph` tool). */
export async function configurationGraph(dir: string, environment: string | undefined): Promise<Array<Pick<GraphNode, 'address' | 'dependsOn'>>> {
  const project = await loadProject(resolve(dir));
  const desired = desiredStateFor(project, pickEnvironment(project, environment));
  // Against an empty environment every resource is a create, and the plan carries each one's
  // dependencies: exactly the graph of the configuration, with no request to any server.
  const plan = computePlan(desired, { environmentSlug: desired.target.slug, resources: [], missingOperations: [] }, { prune: false });
  return graphNodesOf(plan).map(({ address, dependsOn }) => ({ address, dependsOn }));
}
