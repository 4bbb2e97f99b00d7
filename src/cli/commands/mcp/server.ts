// The MCP server of `agentform mcp`: the tools a coding agent needs on a configuration repository,
// each a thin wrapper over what the CLI command of the same name runs. Reading tools only, unless
// the server was started with --allow-apply (then `apply`, of a plan made in this session).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { renderProblems } from '../../../render/problems.js';
import type { GlobalOptions } from '../../global-options.js';
import { VERSION } from '../../version.js';
import { configurationGraph } from '../graph/run.js';
import { SCHEMA_KINDS, schemaTextOf } from '../schema/run.js';
import { offlineProblems } from '../validate/run.js';
import { explain } from './explain.js';
import { SessionPlans } from './plans.js';
import { answer, textResult } from './results.js';

export interface McpServerOptions {
  /** Absolute project directory. */
  projectDir: string;
  allowApply: boolean;
  /** The connection flags (--url, --token, ...) the server was started with. */
  globals: GlobalOptions;
}

const environment = z.string().optional().describe('environment name (a key under environments: in agentform.yaml); default: as the CLI picks it');
/** Offline tools that only read the project's files. */
const OFFLINE = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export function createMcpServer(options: McpServerOptions): McpServer {
  const server = new McpServer({ name: 'agentform', version: VERSION });
  const { projectDir } = options;
  const plans = new SessionPlans(projectDir, options.globals);

  server.registerTool(
    'validate',
    {
      title: 'Validate the configuration',
      description:
        'Check the project offline (schemas, references, ${env:}/${file:}, literal secrets, policy errors): each problem with its file, line and column.',
      inputSchema: { environment },
      annotations: OFFLINE,
    },
    ({ environment }) =>
      answer(async () =>
        textResult(renderProblems(await offlineProblems(projectDir, environment), { projectDir, cwd: projectDir, json: true, githubActions: false })),
      ),
  );

  server.registerTool(
    'plan',
    {
      title: 'Plan an environment',
      description:
        'Read the live state and show what apply would change (never writes). Compact by default: the JSON of `agentform plan --json --changes-only`, with the policy findings and capability changes under `safety`; `full: true` adds the unchanged resources. The second text item names the saved plan (planId).',
      inputSchema: { environment, full: z.boolean().optional().describe('the whole plan, unchanged resources included') },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    ({ environment, full }) => answer(() => plans.plan(environment, full === true, options.allowApply)),
  );

  server.registerTool(
    'explain',
    {
      title: 'Explain a policy rule or a field',
      description: 'What a policy finding\'s rule id means and how to fix it, or what a configuration field is (e.g. "limits.maxTurns" of kind agent).',
      inputSchema: {
        topic: z.string().min(1).describe("a rule id (a finding's `rule`) or a field path such as limits.maxTurns or agent.model.model"),
        kind: z.enum(['agent', 'provider', 'connection', 'apiKey', 'environment']).optional().describe('the kind whose field to explain (default: agent)'),
      },
      annotations: OFFLINE,
    },
    ({ topic, kind }) => answer(async () => textResult(JSON.stringify(explain(topic, kind), null, 2))),
  );

  server.registerTool(
    'graph',
    {
      title: 'Dependency graph',
      description: "The resources of an environment's configuration and what each depends on (offline), as JSON.",
      inputSchema: { environment },
      annotations: OFFLINE,
    },
    ({ environment }) => answer(async () => textResult(JSON.stringify(await configurationGraph(projectDir, environment), null, 2))),
  );

  server.registerTool(
    'schema',
    {
      title: 'JSON Schema of a kind',
      description: 'The JSON Schema of a project file kind, as `agentform schema KIND` prints it.',
      inputSchema: { kind: z.enum(SCHEMA_KINDS).describe('which file kind') },
      annotations: OFFLINE,
    },
    ({ kind }) => answer(async () => textResult(schemaTextOf(kind))),
  );

  if (options.allowApply) {
    server.registerTool(
      'apply',
      {
        title: 'Apply a saved plan',
        description:
          'Apply exactly a plan the plan tool saved in this session (by planId), through the same checks as `agentform apply <plan>`: refused if the configuration or the live state changed since, on policy errors, on lock mismatches, and always for an environment of kind production.',
        inputSchema: { planId: z.string().min(1).describe('the planId the plan tool returned') },
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      },
      ({ planId }) => plans.apply(planId),
    );
  }
  return server;
}
