// Built-in modules a plan or an apply that asks nothing never needs, and so never loads (issue 17:
// every module is start-up time on every run): node:readline (only to ask for `yes`) and
// perf_hooks (which `performance.now()` loads on first use; timings use process.hrtime).
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { runCli } from '../helpers/cli.js';

let plane: LocalControlPlane;
let dir: string;
let hook: string;
beforeAll(async () => {
  plane = await startLocalControlPlane({ dataDir: await mkdtemp(join(tmpdir(), 'agentform-modules-plane-')), environments: ['dev'] });
  dir = await mkdtemp(join(tmpdir(), 'agentform-modules-'));
  await writeFile(join(dir, 'agentform.yaml'), 'version: 1\nenvironments:\n  dev:\n    url: local\n');
  await writeFile(
    join(dir, 'resources.yaml'),
    'kind: Provider\nname: main\nspec:\n  type: openai\n  secret: ${env:MODULES_TEST_SECRET:-sk-test}\n---\nkind: Agent\nname: helper\nspec:\n  model: {provider: main, model: gpt-4o}\n  system: You help.\n',
  );
  hook = join(dir, 'loaded-builtins.cjs');
  await writeFile(hook, "process.on('exit', () => require('fs').writeFileSync(process.env.LOADED_REPORT, JSON.stringify(process.moduleLoadList)));\n");
});
afterAll(async () => {
  await plane.close();
});

async function builtinsLoadedBy(args: string[], report: string): Promise<string[]> {
  const env = { AGENTFORM_URL_DEV: plane.url, AGENTFORM_TOKEN_DEV: plane.tokens.dev as string, NODE_OPTIONS: `--require ${hook}`, LOADED_REPORT: report };
  const result = await runCli(args, { env });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(await readFile(report, 'utf8')) as string[];
}

describe('start-up: built-ins a run does not need are not loaded', () => {
  it.each([
    ['apply --auto-approve', ['apply', '--auto-approve']],
    ['plan', ['plan']],
  ])('%s loads neither node:readline nor perf_hooks', async (name, command) => {
    const loaded = await builtinsLoadedBy([...(command as string[]), dir, '-e', 'dev'], join(dir, `${name.replace(/\W+/g, '-')}.json`));
    expect(loaded.length).toBeGreaterThan(50);
    expect(loaded.filter((module) => /\b(readline|perf_hooks)\b/.test(module))).toEqual([]);
  });
});
