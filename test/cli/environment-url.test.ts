// Regression: commands that open an environment without planning it (history, rollback, promote
// sources) must fill in `${env:}` in the environment's url, as plan does.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { runCli } from '../helpers/cli.js';

describe('an environment url written as ${env:…}', () => {
  let dir: string;
  let dataDir: string;
  let plane: LocalControlPlane;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agentform-envurl-data-'));
    plane = await startLocalControlPlane({ dataDir, environments: ['dev'] });
    dir = mkdtempSync(join(tmpdir(), 'agentform-envurl-'));
    writeFileSync(join(dir, 'agentform.yaml'), 'version: 1\nenvironments:\n  dev:\n    url: ${env:DEV_CONTROL_URL}\n    token: ${env:DEV_CONTROL_TOKEN}\n');
    writeFileSync(
      join(dir, 'bot.yaml'),
      'kind: Provider\nname: p\nspec:\n  type: openai\n---\nkind: Agent\nname: bot\nspec:\n  model: {provider: p, model: m}\n  system: hello\n',
    );
    env = { DEV_CONTROL_URL: plane.url, DEV_CONTROL_TOKEN: plane.tokens.dev as string };
  });
  afterAll(async () => {
    await plane.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('is filled in by plan/apply and by history alike', async () => {
    const apply = await runCli(['apply', dir, '--auto-approve'], { env });
    expect(apply.code, apply.stderr).toBe(0);
    const history = await runCli(['history', 'bot', '-e', 'dev', '--json'], { env, cwd: dir });
    expect(history.code, history.stderr).toBe(0);
    expect(history.stderr).not.toContain('not a URL');
    expect(history.stdout).toContain('"version": 1');
  });
});
