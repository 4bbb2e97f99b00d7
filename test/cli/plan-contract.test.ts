// Regressions of issue 13 part 2, end to end (the real CLI against the local control plane): a
// remote value the configuration does not mention is kept by apply and shown by plan, and removing
// a value takes an explicit empty value or null.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/model/resources.js';
import { copyExample, runCli } from '../helpers/cli.js';
import { withLocalApi } from '../helpers/local-api.js';

const env = { OPENAI_API_KEY: 'sk-test-value', QUICKSTART_SECRET: 'secret-test-value' };

async function edit(file: string, from: string, to: string): Promise<void> {
  const text = await readFile(file, 'utf8');
  expect(text).toContain(from);
  await writeFile(file, text.replace(from, to));
}

describe('the plan shows everything apply will change (local control plane)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await copyExample('quickstart');
    const apply = await runCli(['apply', dir, '--auto-approve'], { env });
    expect(apply.code, apply.stderr).toBe(0);
  });

  it('keeps an out-of-band byTool entry, sandbox and identity, and shows them without counting them as changes', async () => {
    await withLocalApi(dir, async (client) => {
      const current = await client.call('agents.get', { slug: 'researcher' });
      const definition = current.definition as unknown as JsonObject & { policies: JsonObject };
      await client.call('agents.upsert', {
        slug: 'researcher',
        definition: {
          ...definition,
          policies: { ...definition.policies, toolCalls: { ...(definition.policies.toolCalls as JsonObject), byTool: { shell: 'allow' } } },
          sandbox: { scope: 'session', tools: { preset: 'full' } },
          identity: { required: true, switchable: false, scopesAllowed: ['user'] },
        } as never,
      });
    });

    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.stdout).toContain('Kept, not in the configuration');
    expect(plan.stdout).toContain('= agent/researcher: policies.toolCalls.byTool = {"shell":"allow"}');
    expect(plan.stdout).toContain('= agent/researcher: sandbox = {'); // the whole value: in the JSON plan below
    expect(plan.stdout).toMatch(/= agent\/researcher: identity = \{"required":true,"scopesAllowed":\["user"\]/);

    const json = JSON.parse((await runCli(['plan', dir, '--json'], { env })).stdout) as {
      changes: Array<{ address: string; kept?: Array<{ path: string; value: unknown }> }>;
    };
    const sandbox = json.changes.find((change) => change.address === 'agent/researcher')?.kept?.find((field) => field.path === 'sandbox');
    expect(sandbox?.value).toMatchObject({ scope: 'session', tools: { preset: 'full' } });
    // (A server with other defaults may show more, e.g. its own tool-call decisions.)
    expect(json.changes.find((change) => change.address === 'agent/researcher')?.kept?.map((field) => field.path)).toEqual(
      expect.arrayContaining(['policies.toolCalls.byTool', 'sandbox', 'identity']),
    );
    expect((await runCli(['plan', dir, '--markdown'], { env })).stdout).toContain('agent/researcher: policies.toolCalls.byTool = {"shell":"allow"}');

    // The next unrelated edit must not remove them (agents.upsert replaces the whole definition).
    const agents = join(dir, 'agents.yaml');
    await edit(agents, 'maxTurns: 10', 'maxTurns: 12');
    const update = await runCli(['plan', dir, '--json'], { env });
    const researcher = (JSON.parse(update.stdout) as { changes: Array<{ address: string; fields: Array<{ path: string }> }> }).changes.find(
      (change) => change.address === 'agent/researcher',
    );
    expect(researcher?.fields.map((field) => field.path)).toEqual(['limits.maxTurns']);
    const apply = await runCli(['apply', dir, '--auto-approve'], { env });
    expect(apply.code, apply.stderr).toBe(0);
    const after = await withLocalApi(dir, (client) => client.call('agents.get', { slug: 'researcher' }));
    expect(after.definition.policies?.toolCalls?.byTool).toEqual({ shell: 'allow' });
    expect(after.definition.sandbox).toMatchObject({ scope: 'session', tools: { preset: 'full' } });
    expect(after.definition.identity).toMatchObject({ required: true, scopesAllowed: ['user'] });
    expect(after.definition.limits?.maxTurns).toBe(12);
    const again = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout).toBe(0);
  });

  it('removing sandbox.tools.deny from the YAML keeps it (shown); deny: [] removes it', async () => {
    const agents = join(dir, 'agents.yaml');
    await edit(agents, '  subagentPolicy:\n    maxDepth: 1', '  sandbox:\n    tools:\n      deny: [rm]\n  subagentPolicy:\n    maxDepth: 1');
    expect((await runCli(['apply', dir, '--auto-approve'], { env })).code).toBe(0);

    await edit(agents, '  sandbox:\n    tools:\n      deny: [rm]\n', '');
    const kept = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(kept.code, kept.stdout).toBe(0);
    expect(kept.stdout).toContain('= agent/support: sandbox = {');
    const json = JSON.parse((await runCli(['plan', dir, '--json'], { env })).stdout) as {
      changes: Array<{ address: string; kept?: Array<{ path: string; value: unknown }> }>;
    };
    expect(json.changes.find((change) => change.address === 'agent/support')?.kept).toEqual(
      expect.arrayContaining([{ path: 'sandbox', value: expect.objectContaining({ tools: expect.objectContaining({ deny: ['rm'] }) }) }]),
    );

    await edit(agents, '  subagentPolicy:\n    maxDepth: 1', '  sandbox:\n    tools:\n      deny: []\n  subagentPolicy:\n    maxDepth: 1');
    const removal = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(removal.code, removal.stdout).toBe(2);
    expect(removal.stdout).toContain('~ sandbox.tools.deny: ["rm"] → []');
    expect((await runCli(['apply', dir, '--auto-approve'], { env })).code).toBe(0);
    const after = await withLocalApi(dir, (client) => client.call('agents.get', { slug: 'support' }));
    expect(after.definition.sandbox?.tools?.deny ?? []).toEqual([]);
  });

  it('a spend cap removed from the YAML is kept (shown); null leaves it to the server on the next write', async () => {
    const root = join(dir, 'agentform.yaml');
    await edit(root, '    url: local\n', '    url: local\n    settings:\n      name: Dev\n      spend: {dailyUsd: 5, tokensPerMonth: 1000}\n');
    expect((await runCli(['apply', dir, '--auto-approve'], { env })).code).toBe(0);

    await edit(root, 'spend: {dailyUsd: 5, tokensPerMonth: 1000}', 'spend: {tokensPerMonth: 1000}');
    const kept = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(kept.code, kept.stdout).toBe(0);
    expect(kept.stdout).toContain('= environment/dev: spend.dailyUsd = 5');

    await edit(root, 'name: Dev\n      spend: {tokensPerMonth: 1000}', 'name: Development\n      spend: {tokensPerMonth: 1000, dailyUsd: null}');
    const reset = await runCli(['plan', dir], { env });
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain('~ name: "Dev" → "Development"');
    expect(reset.stdout).toContain('~ spend.dailyUsd: 5 → (server default)');
    expect((await runCli(['apply', dir, '--auto-approve'], { env })).code).toBe(0);
    const after = await withLocalApi(dir, (client) => client.call('environments.get', { slug: 'dev' }));
    // Reset to the server's default (none on the default profile; another profile may have one).
    expect(after.spend?.dailyUsd).not.toBe(5);
    expect(after.spend?.tokensPerMonth).toBe(1000);
    const again = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout).toBe(0);
  });
});
