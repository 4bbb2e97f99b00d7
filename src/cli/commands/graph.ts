import { dirOption, projectDirFrom } from '../project-dir.js';
import { Option, type Command } from 'commander';

export function register(program: Command): void {
  program
    .command('graph')
    .description('print the dependency graph of the configuration (offline) as Mermaid or DOT')
    .argument('[dir]', 'project directory (holds agentform.yaml)')
    .addOption(dirOption())
    .option('-e, --env <name>', 'environment whose resources to draw')
    .addOption(new Option('--format <format>', 'output format').choices(['mermaid', 'dot']).default('mermaid'))
    .option('--json', 'print the nodes and their dependencies as JSON')
    .action(async (dirArgument: string | undefined, options: { env?: string; dir?: string; format: 'mermaid' | 'dot'; json?: boolean }) => {
      const dir = projectDirFrom(dirArgument, options.dir);
      const [{ resolve }, { desiredStateFor, loadProject, pickEnvironment }, { computePlan }, { graphNodesOf, renderDot, renderMermaid }] = await Promise.all([
        import('node:path'),
        import('../../config/index.js'),
        import('../../engine/plan.js'),
        import('../../render/graph.js'),
      ]);
      const project = await loadProject(resolve(dir));
      const desired = desiredStateFor(project, pickEnvironment(project, options.env));
      // Against an empty environment every resource is a create, and the plan carries each one's
      // dependencies: exactly the graph of the configuration, with no request to any server.
      const plan = computePlan(desired, { environmentSlug: desired.target.slug, resources: [], missingOperations: [] }, { prune: false });
      const nodes = graphNodesOf(plan).map(({ address, dependsOn }) => ({ address, dependsOn }));
      if (options.json) process.stdout.write(`${JSON.stringify(nodes, null, 2)}\n`);
      else process.stdout.write(`${options.format === 'dot' ? renderDot(nodes) : renderMermaid(nodes)}\n`);
    });
}
