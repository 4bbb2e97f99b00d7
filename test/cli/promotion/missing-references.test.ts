// End to end: promotion into an environment that lacks a provider or connection the promoted agents
// use is refused before any write, imperative (`promote --with-subagents`) and declarative
// (`promote:` in the configuration), and goes through once the target has them. Two environments
// on one local control plane (test/fixtures/promotion/missing-references).
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { READ_RPC, REPO, calledRpcs, runCli } from '../../helpers/cli.js';
import { editFile } from '../../helpers/gitops-example.js';

const FIXTURE = join(REPO, 'test', 'fixtures', 'promotion', 'missing-references');

async function copyFixture(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentform-missing-references-'));
  await cp(FIXTURE, dir, { recursive: true });
  return dir;
}

const edit = editFile;

function writes(stderr: string): string[] {
  return calledRpcs(stderr).filter((rpc) => !READ_RPC.test(rpc));
}

async function applyEnvironment(dir: string, environment: string): Promise<void> {
  const result = await runCli(['apply', dir, '-e', environment, '--auto-approve'], {});
  expect(result.code, result.stderr).toBe(0);
}

let dir: string;
beforeEach(async () => {
  dir = await copyFixture();
});

describe('promote into an environment that lacks what the agents use', () => {
  it('--with-subagents is refused with exit 1 and nothing written, and succeeds once production has them', async () => {
    await applyEnvironment(dir, 'staging');
    const promote = () =>
      runCli(['promote', 'support', '--from', 'staging', '--to', 'production', '--with-subagents', '--auto-approve', '-C', dir, '--debug'], {});

    const refused = await promote();
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain('production lacks what the agents to be written use (3 references); nothing was written:');
    expect(refused.stderr).toContain('agent researcher uses provider openai (model.provider), which production does not have\n');
    expect(refused.stderr).toContain('agent support uses provider openai (model.provider), which production does not have\n');
    expect(refused.stderr).toContain('agent support uses connection everything (tools[0].name), which production does not have\n');
    // researcher is promoted in the same run: support's subagent is not missing.
    expect(refused.stderr).not.toContain('uses agent researcher');
    expect(refused.stderr).toContain('declare provider openai, connection everything for production, then apply production');
    expect(refused.stderr).not.toContain('    at ');
    expect(writes(refused.stderr)).toEqual([]);

    // Declared for production, not applied yet: the agents still could not run; the message says what to do.
    const platform = join(dir, 'platform.yaml');
    await writeFile(platform, (await readFile(platform, 'utf8')).replaceAll('environments: [staging]\n', ''));
    const declared = await promote();
    expect(declared.code, declared.stderr).toBe(1);
    expect(declared.stderr).toContain(
      'agent support uses connection everything (tools[0].name), which production does not have yet: its configuration declares it, apply production first',
    );
    expect(writes(declared.stderr)).toEqual([]);

    await applyEnvironment(dir, 'production');
    const promoted = await promote();
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(promoted.stdout).toContain('Promoted researcher: staging v1 → production v1');
    expect(promoted.stdout).toContain('Promoted support: staging v1 → production v1');
  }, 120_000);
});

describe('declarative promotion of a definition that names what the target lacks', () => {
  it('plan and apply refuse before any write, and apply once production declares it', async () => {
    // The provider is everywhere; the connection only in staging, where researcher's overlay uses
    // it. Production's own configuration names no connection: only the promoted definition does.
    await edit(join(dir, 'platform.yaml'), 'name: openai\nenvironments: [staging]\n', 'name: openai\n');
    await writeFile(
      join(dir, 'agents.yaml'),
      [
        'kind: Agent',
        'name: researcher',
        'spec:',
        '  description: Looks things up for support.',
        '  model: {provider: openai, model: gpt-4o-mini}',
        '  system: You look things up.',
        '  tools: []',
        '  policies: {toolCalls: {default: deny}}',
        'overlays:',
        '  staging:',
        '    tools: [{type: connection, name: everything}]',
        '  production:',
        '    promote: {from: staging, version: 1}',
        '',
      ].join('\n'),
    );
    await applyEnvironment(dir, 'staging');

    for (const command of ['plan', 'apply']) {
      const refused = await runCli([command, dir, '-e', 'production', '--debug', ...(command === 'apply' ? ['--auto-approve'] : [])], {});
      expect(refused.code, refused.stderr).toBe(1);
      expect(refused.stderr).toContain('agent researcher uses connection everything (tools[0].name), which production does not have\n');
      expect(refused.stderr).toContain('declare connection everything for production, or promote a source version that does not use it');
      expect(writes(refused.stderr)).toEqual([]);
    }

    await edit(join(dir, 'platform.yaml'), 'name: everything\nenvironments: [staging]\n', 'name: everything\n');
    await applyEnvironment(dir, 'production');
  }, 120_000);
});
