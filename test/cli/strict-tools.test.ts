// Least privilege from the lock, end to end: the real CLI against a local control plane started
// with dev endpoints and tool-policy enforcement, whose connection points at
// @modelcontextprotocol/server-everything. In strict mode a tool the server adds after the apply
// is refused at call time, the plan names it as denied, and a lock update plus apply allows it.
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { copyExample, runCli, type CliResult } from '../helpers/cli.js';
import { startEverythingServer, type EverythingServer } from '../helpers/mcp-everything.js';

const ADDED = 'delete-everything';

interface DerivedPolicy {
  agent: string;
  default: string;
  entries: Array<{ tool: string; decision: string; from: string }>;
  denied?: Array<{ tool: string; decision: string; from: string }>;
}

describe('strictTools: tool policies derived from the lock, enforced by the local plane', () => {
  let dir: string;
  let dataDir: string;
  let extraToolFile: string;
  let plane: LocalControlPlane;
  let server: EverythingServer;
  let env: NodeJS.ProcessEnv;
  const cli = (args: string[]): Promise<CliResult> => runCli([...args, '-C', dir], { env });
  async function callTool(tool: string, args: Record<string, unknown> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${plane.url}/dev/tools/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${plane.tokens.dev as string}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'support', connection: 'tools', tool, arguments: args }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  async function supportPolicy(args: string[] = []): Promise<{ result: CliResult; policy: DerivedPolicy | undefined; plan: Record<string, unknown> }> {
    const result = await cli(['plan', '--json', ...args]);
    const plan = JSON.parse(result.stdout) as Record<string, unknown>;
    const policies = (plan.derivedToolPolicies ?? []) as DerivedPolicy[];
    return { result, plan, policy: policies.find((policy) => policy.agent === 'support') };
  }

  beforeAll(async () => {
    dir = await copyExample('quickstart');
    dataDir = mkdtempSync(join(tmpdir(), 'agentform-strict-'));
    extraToolFile = join(dataDir, 'extra-tool.json');
    server = await startEverythingServer({ extraToolFile });
    plane = await startLocalControlPlane({ dataDir: join(dataDir, 'plane'), environments: ['dev'], devEndpoints: true, enforceToolPolicy: true });
    env = { AGENTFORM_URL_DEV: plane.url, AGENTFORM_TOKEN_DEV: plane.tokens.dev as string };
    const root = join(dir, 'agentform.yaml');
    await writeFile(root, (await readFile(root, 'utf8')).replace('    url: local\n', '    url: local\n    strictTools: true\n'));
    const connections = join(dir, 'connections.yaml');
    await writeFile(connections, (await readFile(connections, 'utf8')).replace('http://127.0.0.1:8931/mcp', server.url));
    // The support agent uses every tool of the connection, and decides nothing per tool itself:
    // without strict mode its `default: allow` would let a tool added later run.
    const agents = join(dir, 'agents.yaml');
    const text = (await readFile(agents, 'utf8'))
      .replace('      name: current_time\n', '      name: current_time\n    - type: connection\n      name: tools\n')
      .replace('      hook:\n        connection: tools\n', '');
    await writeFile(agents, text);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await plane?.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the first apply creates and locks the connection; the next plan derives an allow per locked tool and a default deny', async () => {
    const first = await cli(['apply', '--auto-approve']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const { result, policy } = await supportPolicy();
    expect(result.code, result.stderr).toBe(0);
    expect(policy?.default).toBe('deny');
    expect(policy?.entries).toContainEqual({ tool: 'echo', decision: 'allow', from: 'connection tools' });
    expect(policy?.entries).toContainEqual({ tool: 'current_time', decision: 'allow', from: 'builtin' });
    expect(policy?.entries.map((entry) => entry.tool)).not.toContain(ADDED);
    const text = await cli(['plan']);
    expect(text.stdout).toContain('Tool policy derived from agentform.lock.yaml');
    expect(text.stdout).toContain('+ byTool.echo = allow  # connection tools, in the lock');
    const second = await cli(['apply', '--auto-approve']);
    expect(second.code, second.stdout + second.stderr).toBe(0);
  });

  it('a locked tool the policy allows is called through the local plane', async () => {
    const { status, body } = await callTool('echo', { message: 'hi' });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ decision: 'allowed', enforced: true, outcome: 'called' });
    expect(JSON.stringify(body.result)).toContain('Echo: hi');
  });

  it('a tool the server adds after the apply is refused at call time', async () => {
    await writeFile(extraToolFile, JSON.stringify({ name: ADDED }));
    const { status, body } = await callTool(ADDED);
    expect(status).toBe(403);
    expect(JSON.stringify(body)).toContain(`tools.${ADDED} is denied by the tool policy of agent support`);
  });

  it('plan --check-tools shows the surface change and the derived deny of the added tool', async () => {
    const { result, policy, plan } = await supportPolicy(['--check-tools']);
    expect(result.code).toBe(1);
    expect(policy?.denied).toEqual([{ tool: ADDED, decision: 'deny', from: 'connection tools' }]);
    expect(JSON.stringify(plan.toolSurface)).toContain(ADDED);
    const text = await cli(['plan', '--check-tools']);
    expect(text.stdout).toContain(`- ${ADDED}: deny  # connection tools serves it, the lock does not record it`);
    const markdown = await cli(['plan', '--check-tools', '--markdown']);
    expect(markdown.stdout).toContain(`- ${ADDED}: deny`);
  });

  it('apply --update-lock and rollback refuse: the derived policy would not follow the lock', async () => {
    const updating = await cli(['apply', '--auto-approve', '--update-lock']);
    expect(updating.code).toBe(1);
    expect(updating.stderr).toContain('refusing apply --update-lock in dev: agentform.yaml sets strictTools: true');
    expect(updating.stderr).toContain('agentform lock --update -e dev');
    const rollback = await cli(['rollback', 'support', '--to', '1', '-e', 'dev', '--auto-approve']);
    expect(rollback.code).toBe(1);
    expect(rollback.stderr).toContain('refusing to roll back support into dev: agentform.yaml sets strictTools: true');
  });

  it('after agentform lock --update and an apply, the plan shows the derived allow and the call runs', async () => {
    const locked = await cli(['lock', '--update', '-e', 'dev']);
    expect(locked.code, locked.stdout + locked.stderr).toBe(0);
    const { policy } = await supportPolicy();
    expect(policy?.entries).toContainEqual({ tool: ADDED, decision: 'allow', from: 'connection tools' });
    const applied = await cli(['apply', '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const { status, body } = await callTool(ADDED);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ decision: 'allowed', outcome: 'called' });
    expect(JSON.stringify(body.result)).toContain(`${ADDED} ran`);
    await rm(extraToolFile);
  });

  it('promote into a strict environment refuses, before connecting to it', async () => {
    const root = join(dir, 'agentform.yaml');
    await writeFile(
      root,
      (await readFile(root, 'utf8')).replace('defaultEnvironment: dev', '  prod:\n    url: http://127.0.0.1:9\n    strictTools: true\ndefaultEnvironment: dev'),
    );
    const promoted = await cli(['promote', 'support', '--from', 'dev', '--to', 'prod', '--auto-approve']);
    expect(promoted.code, promoted.stderr).toBe(1);
    expect(promoted.stderr).toContain('refusing to promote support into prod: agentform.yaml sets strictTools: true');
    expect(promoted.stderr).toContain('promote: on the agent');
  });
});
