// `agentform mcp` driven by the MCP SDK's own client over stdio: the built CLI as a child process,
// against the real local control plane (the quickstart's `url: local`).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, REPO, cliEnv, copyExample, runCli } from '../helpers/cli.js';

const SENTINEL = 'sk-SENTINEL-provider-secret-5d1e';
const env = { OPENAI_API_KEY: SENTINEL, QUICKSTART_SECRET: 'SENTINEL-secret-value-88ab' };
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    env: cliEnv(env) as Record<string, string>,
    cwd: REPO,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'agentform-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function texts(result: CallToolResult): string[] {
  return result.content.map((item) => (item.type === 'text' ? item.text : ''));
}

/** The quickstart with a second local environment of kind production. */
async function withProduction(): Promise<string> {
  const dir = await copyExample('quickstart');
  const yaml = join(dir, 'agentform.yaml');
  await writeFile(
    yaml,
    (await readFile(yaml, 'utf8')).replace('environments:\n', 'environments:\n  prod:\n    url: local\n    settings:\n      kind: production\n'),
  );
  return dir;
}

describe('agentform mcp', () => {
  it('lists its read-only tools with their annotations, and no apply tool without --allow-apply', async () => {
    const client = await connect([await copyExample('quickstart')]);
    expect(client.getServerVersion()?.name).toBe('agentform');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['explain', 'graph', 'plan', 'schema', 'validate']);
    for (const tool of tools) expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(tools.find((tool) => tool.name === 'plan')?.annotations?.openWorldHint).toBe(true);
    const refused = await call(client, 'apply', { planId: 'anything' });
    expect(refused.isError).toBe(true);
  });

  it('refuses to start outside a project, saying where it looked', async () => {
    const result = await runCli(['mcp', 'test/fixtures/no-such-project']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no agentform.yaml in');
    expect(result.stderr).toContain('no-such-project');
    expect(result.stdout).toBe('');
  });

  it('with --allow-apply, lists apply as destructive', async () => {
    const client = await connect([await copyExample('quickstart'), '--allow-apply']);
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'apply')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('validate returns located problems', async () => {
    const client = await connect(['-C', join(REPO, 'test/fixtures/invalid/dangling-provider')]);
    const result = await call(client, 'validate');
    expect(result.isError).toBeFalsy();
    const report = JSON.parse(texts(result)[0] as string);
    expect(report.valid).toBe(false);
    expect(report.problems).toContainEqual(
      expect.objectContaining({ severity: 'error', file: 'agents.yaml', line: 5, col: 15, message: expect.stringContaining('"opneai" is not declared') }),
    );
  });

  it('plan is the compact plan of `plan --json --changes-only`; full: true the whole plan', async () => {
    const dir = await copyExample('quickstart');
    const apply = await runCli(['apply', dir, '--auto-approve'], { env });
    expect(apply.code, apply.stderr).toBe(0);
    const agents = join(dir, 'agents.yaml');
    await writeFile(agents, (await readFile(agents, 'utf8')).replace('maxTurns: 20', 'maxTurns: 25'));

    const cli = await runCli(['plan', dir, '--json', '--changes-only'], { env });
    expect(cli.code, cli.stderr).toBe(0);
    const client = await connect([dir]);
    const compact = await call(client, 'plan');
    expect(compact.isError, texts(compact).join('\n')).toBeFalsy();
    const [json, note] = texts(compact);
    expect(JSON.parse(json as string)).toEqual(JSON.parse(cli.stdout));
    expect(JSON.parse(note as string)).toMatchObject({ environment: 'dev', changes: 1, planId: expect.any(String) });

    const full = JSON.parse(texts(await call(client, 'plan', { environment: 'dev', full: true }))[0] as string);
    expect(full.changes.length).toBeGreaterThan(JSON.parse(cli.stdout).changes.length);
    expect(full.changes.some((change: { action: string }) => change.action === 'no-op')).toBe(true);
    for (const text of [...texts(compact), JSON.stringify(full)]) expect(text).not.toContain(SENTINEL);
  });

  it('apply applies a plan made in the session, once; an unknown planId is refused', async () => {
    const client = await connect([await copyExample('quickstart'), '--allow-apply']);
    const unknown = await call(client, 'apply', { planId: 'not-from-this-session' });
    expect(unknown.isError).toBe(true);
    expect(texts(unknown)[0]).toContain('no plan not-from-this-session in this session');

    const { planId } = JSON.parse(texts(await call(client, 'plan', { environment: 'dev' }))[1] as string);
    const applied = await call(client, 'apply', { planId });
    expect(applied.isError, texts(applied).join('\n')).toBeFalsy();
    const events = (texts(applied)[0] as string)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.at(-1)).toMatchObject({ type: 'summary', failed: [], ms: expect.any(Number) });
    expect(events.at(-1).counts.added).toBeGreaterThan(0);
    expect(texts(applied).join('\n')).not.toContain(SENTINEL);

    const after = JSON.parse(texts(await call(client, 'plan', { environment: 'dev' }))[0] as string);
    expect(after.changes.filter((change: { action: string }) => change.action !== 'unmanaged')).toEqual([]);
    expect((await call(client, 'apply', { planId })).isError).toBe(true);
  });

  // A plan made under forget: or owns: covers less than the environment: the saved plan must hold
  // what the plan covered, as `plan --out` saves it, or apply finds it stale.
  it('apply of a session plan works when agentform.yaml forgets a live resource', async () => {
    const dir = await copyExample('quickstart');
    expect((await runCli(['apply', dir, '--auto-approve'], { env })).code).toBe(0);
    await writeFile(join(dir, 'agentform.yaml'), `${await readFile(join(dir, 'agentform.yaml'), 'utf8')}forget:\n  - agent/researcher\n`);
    const agents = join(dir, 'agents.yaml');
    const text = await readFile(agents, 'utf8');
    await writeFile(
      agents,
      text
        .slice(0, text.indexOf('---'))
        .replace('maxTurns: 20', 'maxTurns: 21')
        .replace(/ {2}subagents:\n( {4}.*\n)+/, ''),
    );
    const client = await connect([dir, '--allow-apply']);
    const { planId } = JSON.parse(texts(await call(client, 'plan', { environment: 'dev' }))[1] as string);
    const applied = await call(client, 'apply', { planId });
    expect(applied.isError, texts(applied).join('\n')).toBeFalsy();
  });

  it("plan's next says the apply tool would refuse a plan with a policy error (plan's exit code), and apply does", async () => {
    const dir = await copyExample('quickstart');
    const yaml = join(dir, 'agentform.yaml');
    // The quickstart's two agents are more than one changed agent: an error, in dev too.
    const strict = 'policy:\n  rules:\n    plan-changed-agents: error\n  plan:\n    maxChangedAgents: 1\nenvironments:\n';
    await writeFile(yaml, (await readFile(yaml, 'utf8')).replace('environments:\n', strict));
    const client = await connect([dir, '--allow-apply']);
    const planned = await call(client, 'plan', { environment: 'dev' });
    expect(planned.isError, texts(planned).join('\n')).toBeFalsy();
    const note = JSON.parse(texts(planned)[1] as string);
    expect(note.next).toBe('the apply tool would refuse this plan: 1 policy error (safety.findings)');
    const refused = await call(client, 'apply', { planId: note.planId });
    expect(refused.isError).toBe(true);
    expect(texts(refused).join('\n')).toContain('[plan-changed-agents]');
    expect((await runCli(['plan', dir, '-e', 'dev'], { env })).code).toBe(1);
  });

  it('apply refuses an environment of kind production, before any write', async () => {
    const client = await connect([await withProduction(), '--allow-apply']);
    const planned = await call(client, 'plan', { environment: 'prod' });
    expect(planned.isError, texts(planned).join('\n')).toBeFalsy();
    const note = JSON.parse(texts(planned)[1] as string);
    expect(note.next).toContain('production');
    const refused = await call(client, 'apply', { planId: note.planId });
    expect(refused.isError).toBe(true);
    expect(texts(refused)[0]).toContain('refusing to apply to prod: its kind is production');
    const again = JSON.parse(texts(await call(client, 'plan', { environment: 'prod' }))[0] as string);
    expect(again.summary.add).toBe(JSON.parse(texts(planned)[0] as string).summary.add);
  });

  it.each([
    ['a rule id', { topic: 'limits-missing' }, { rule: 'limits-missing', docs: 'docs/policy.md#built-in-rules' }],
    ['a field', { topic: 'limits.maxTurns' }, { kind: 'agent', field: 'limits.maxTurns', description: expect.any(String) }],
    ['a field of a named kind', { topic: 'provider.type' }, { kind: 'provider', field: 'type' }],
  ])('explain: %s', async (_, args, expected) => {
    const client = await connect([await copyExample('quickstart')]);
    const result = await call(client, 'explain', args);
    expect(result.isError, texts(result).join('\n')).toBeFalsy();
    expect(JSON.parse(texts(result)[0] as string)).toMatchObject(expected);
  });

  it('graph and schema answer offline; an unknown topic is an error result', async () => {
    const client = await connect([await copyExample('quickstart')]);
    const graph = JSON.parse(texts(await call(client, 'graph'))[0] as string);
    expect(graph).toContainEqual(expect.objectContaining({ address: 'agent/support' }));
    const schema = JSON.parse(texts(await call(client, 'schema', { kind: 'agent' }))[0] as string);
    expect(schema.title).toBeDefined();
    const unknown = await call(client, 'explain', { topic: 'no.such.thing' });
    expect(unknown.isError).toBe(true);
  });
});
