// `validate --remote`: models and tools checked against a real local control plane (and a real MCP
// server on loopback), run through the real CLI.
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlApiClient } from '../../src/api/client.js';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { copyExample, runCli } from '../helpers/cli.js';
import { startEverythingServer, type EverythingServer } from '../helpers/mcp-everything.js';

describe('agentform validate --remote', () => {
  let dir: string;
  let dataDir: string;
  let plane: LocalControlPlane;
  let tools: EverythingServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dir = await copyExample('quickstart');
    dataDir = mkdtempSync(join(tmpdir(), 'agentform-remote-'));
    plane = await startLocalControlPlane({ dataDir, environments: ['dev'] });
    tools = await startEverythingServer();
    // The project says `url: local`; AGENTFORM_URL_DEV points it at this test's server instead.
    env = { AGENTFORM_URL_DEV: plane.url, AGENTFORM_TOKEN_DEV: plane.tokens.dev as string };
    const connections = join(dir, 'connections.yaml');
    await writeFile(connections, (await readFile(connections, 'utf8')).replace('http://127.0.0.1:8931/mcp', tools.url));
  }, 60_000);
  afterAll(async () => {
    await tools?.stop();
    await plane?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('checks resources that do not exist yet after apply, with a notice', async () => {
    const result = await runCli(['validate', dir, '--remote'], { env });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stderr).toContain('notice: provider openai does not exist in dev yet');
  });

  it('reports a model the provider does not offer, located, with a suggestion', async () => {
    expect((await runCli(['apply', dir, '--auto-approve'], { env })).code).toBe(0);
    const agents = join(dir, 'agents.yaml');
    await writeFile(agents, (await readFile(agents, 'utf8')).replace('model: gpt-4o\n', 'model: gpt-4oo\n'));
    const result = await runCli(['validate', dir, '--remote'], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/agents\.yaml:\d+:\d+: spec\.model\.model: model "gpt-4oo" is not offered by provider openai in dev.*did you mean "gpt-4o/);
    // At the offending value's line and column, not at the top of its document.
    const text = await readFile(agents, 'utf8');
    const lines = text.split('\n');
    const line = lines.findIndex((row) => row.includes('model: gpt-4oo')) + 1;
    const col = (lines[line - 1] as string).indexOf('gpt-4oo') + 1;
    expect(result.stdout).toContain(`agents.yaml:${line}:${col}: spec.model.model: model "gpt-4oo"`);
    await writeFile(agents, (await readFile(agents, 'utf8')).replace('model: gpt-4oo\n', 'model: gpt-4o\n'));
  });

  it("reports a tool the agent's connection does not offer, from the MCP server's real tool list", async () => {
    const agents = join(dir, 'agents.yaml');
    await writeFile(
      agents,
      (await readFile(agents, 'utf8')).replace('      default: allow\n', '      default: allow\n      byTool:\n        echo: allow\n        ech0: allow\n'),
    );
    const result = await runCli(['validate', dir, '--remote'], { env });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain('tool "ech0" is not offered by tools in dev');
    const line = (await readFile(agents, 'utf8')).split('\n').findIndex((row) => row.includes('ech0: allow')) + 1;
    expect(result.stdout).toMatch(new RegExp(`agents\\.yaml:${line}:\\d+: spec\\.policies\\.toolCalls\\.byTool\\.ech0: tool "ech0"`));
    expect(result.stdout).toContain('did you mean "echo"');
    expect(result.stdout).not.toContain('tool "echo"');
  });

  it('checks the byTool names of an agent without a hook against the connections its tools[] give it', async () => {
    const agents = join(dir, 'agents.yaml');
    const before = await readFile(agents, 'utf8');
    const researcher = '  tools: []\n  policies:\n    toolCalls:\n      default: deny\n';
    expect(before).toContain(researcher);
    // `tools` names the connection, not one of its tools: it is not a tool name byTool may use.
    const calling =
      '  tools: [{type: connection, name: tools}]\n  policies:\n    toolCalls:\n      default: deny\n      byTool: {echo: allow, ech0: allow, tools: allow}\n';
    await writeFile(agents, before.replace(researcher, calling));
    try {
      const result = await runCli(['validate', dir, '--remote'], { env });
      expect(result.code, result.stdout + result.stderr).toBe(1);
      const lines = (await readFile(agents, 'utf8')).split('\n');
      const line = lines.findIndex((row) => row.includes('byTool: {echo: allow, ech0: allow')) + 1;
      const col = (lines[line - 1] as string).indexOf('ech0: allow') + 'ech0: '.length + 1;
      expect(result.stdout).toContain(
        `agents.yaml:${line}:${col}: spec.policies.toolCalls.byTool.ech0: tool "ech0" is not offered by tools in dev; did you mean "echo"?`,
      );
      expect(result.stdout).toContain('spec.policies.toolCalls.byTool.tools: tool "tools" is not offered by tools in dev');
      expect(result.stdout).not.toContain('tool "echo"');
    } finally {
      await writeFile(agents, before);
    }
  });

  it('never looks for sandbox tools (grep, rm) among the connection tools, and apply gives the same outcome on every run', async () => {
    const agents = join(dir, 'agents.yaml');
    const before = await readFile(agents, 'utf8');
    const sandbox = '  sandbox:\n    connectionName: tools\n    tools:\n      allow: [grep]\n      deny: [rm]\n';
    await writeFile(
      agents,
      before
        .replace('      byTool:\n        echo: allow\n        ech0: allow\n', '      byTool:\n        echo: allow\n        grep: allow\n')
        .replace('  subagentPolicy:\n', `${sandbox}  subagentPolicy:\n`),
    );
    const validated = await runCli(['validate', dir, '--remote'], { env });
    expect(validated.code, validated.stdout + validated.stderr).toBe(0);
    expect(validated.stdout).not.toContain('"grep"');
    expect(validated.stdout).not.toContain('"rm"');
    // Run 1 creates the connection in a fresh environment (its tools are tested then); run 2 finds
    // it existing. The same configuration must give the same outcome both times.
    const fresh = mkdtempSync(join(tmpdir(), 'agentform-remote-fresh-'));
    const other = await startLocalControlPlane({ dataDir: fresh, environments: ['dev'] });
    try {
      const otherEnv = { AGENTFORM_URL_DEV: other.url, AGENTFORM_TOKEN_DEV: other.tokens.dev as string };
      const run1 = await runCli(['apply', dir, '--auto-approve'], { env: otherEnv });
      expect(run1.code, run1.stdout + run1.stderr).toBe(0);
      await writeFile(agents, (await readFile(agents, 'utf8')).replace('maxTurns: 20', 'maxTurns: 21'));
      const run2 = await runCli(['apply', dir, '--auto-approve'], { env: otherEnv });
      expect(run2.code, run2.stdout + run2.stderr).toBe(0);
      expect(run2.stdout).toContain('agent/support');
    } finally {
      await other.close();
      rmSync(fresh, { recursive: true, force: true });
      await writeFile(agents, before);
    }
  }, 60_000);

  it('skips the tool checks with a notice when the key is read-only', async () => {
    const client = new ControlApiClient({ baseUrl: plane.url, credential: { kind: 'key', token: plane.tokens.dev as string } });
    const { token } = await client.call('apiKeys.create', { key: { name: 'read-only', scopes: ['read'] } });
    await client.close();
    const result = await runCli(['validate', dir, '--remote'], { env: { ...env, AGENTFORM_TOKEN_DEV: token } });
    expect(result.code, result.stdout).toBe(0);
    expect(result.stderr).toContain('tool checks skipped: connections.test needs the control scope');
    expect(result.stdout + result.stderr).not.toContain(token);
  });
});
