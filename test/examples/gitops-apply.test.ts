// examples/gitops applied to its three environments twice in a row (issue 44): the first apply of
// production is not the last one that passes. Between the two rounds the server has filled in
// every field the configuration leaves to it; under both server profiles the second round is
// accepted by the same review and writes nothing.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { READ_RPC, calledRpcs, copyExample, runCli } from '../helpers/cli.js';

const SECRETS = { OPENAI_API_KEY: 'sk-gitops-openai', ANTHROPIC_API_KEY: 'sk-gitops-anthropic', CRM_SUPPORT_TOKEN: 'crm-support', NPM_TOKEN: 'npm-token' };
const ENVIRONMENTS = ['dev', 'staging', 'production'] as const;

async function edit(file: string, from: string, to: string): Promise<void> {
  const text = await readFile(file, 'utf8');
  expect(text, `${file} has ${from}`).toContain(from);
  await writeFile(file, text.replace(from, to));
}

describe('examples/gitops, applied twice to every environment', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await copyExample('gitops');
    // Every environment on the local control plane (one plane, three environments); production
    // stays of kind production, so its rules are errors.
    const root = join(dir, 'agentform.yaml');
    await edit(root, 'url: https://control.staging.example.com', 'url: local');
    await edit(root, 'url: https://control.example.com', 'url: local');
    // production promotes support from staging's first version, the one this test makes.
    await edit(join(dir, 'agents', 'support.yaml'), 'promote: {from: staging, version: 7}', 'promote: {from: staging, version: 1}');
  });

  it('check, then apply dev, staging and production; again: the same verdict, nothing written', async () => {
    for (const round of [1, 2]) {
      for (const environment of ENVIRONMENTS) {
        const check = await runCli(['check', dir, '-e', environment], { env: SECRETS });
        expect(check.code, `round ${round} check ${environment}: ${check.stdout}${check.stderr}`).toBe(0);
        const apply = await runCli(['apply', dir, '-e', environment, '--auto-approve', '--debug'], { env: SECRETS });
        expect(apply.code, `round ${round} apply ${environment}: ${apply.stdout}${apply.stderr}`).toBe(0);
        const writes = calledRpcs(apply.stderr).filter((rpc) => !READ_RPC.test(rpc));
        if (round === 1) expect(writes.length, `round 1 ${environment}`).toBeGreaterThan(0);
        else expect(writes, `round 2 ${environment}: ${apply.stdout}`).toEqual([]);
      }
    }
  }, 180_000);
});
