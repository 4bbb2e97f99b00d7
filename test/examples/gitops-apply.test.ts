// examples/gitops applied to its three environments twice in a row (issue 44): the first apply of
// production is not the last one that passes. Between the two rounds the server has filled in
// every field the configuration leaves to it; under both server profiles the second round is
// accepted by the same review and writes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { READ_RPC, calledRpcs, runCli } from '../helpers/cli.js';
import { GITOPS_SECRETS, gitopsOnLocalPlanes } from '../helpers/gitops-example.js';

const ENVIRONMENTS = ['dev', 'staging', 'production'] as const;

describe('examples/gitops, applied twice to every environment', () => {
  let dir: string;
  beforeAll(async () => {
    // One plane, three environments; production stays of kind production (its rules are errors).
    dir = await gitopsOnLocalPlanes();
  });

  it('check, then apply dev, staging and production; again: the same verdict, nothing written', async () => {
    for (const round of [1, 2]) {
      for (const environment of ENVIRONMENTS) {
        const check = await runCli(['check', dir, '-e', environment], { env: GITOPS_SECRETS });
        expect(check.code, `round ${round} check ${environment}: ${check.stdout}${check.stderr}`).toBe(0);
        const apply = await runCli(['apply', dir, '-e', environment, '--auto-approve', '--debug'], { env: GITOPS_SECRETS });
        expect(apply.code, `round ${round} apply ${environment}: ${apply.stdout}${apply.stderr}`).toBe(0);
        const writes = calledRpcs(apply.stderr).filter((rpc) => !READ_RPC.test(rpc));
        if (round === 1) expect(writes.length, `round 1 ${environment}`).toBeGreaterThan(0);
        else expect(writes, `round 2 ${environment}: ${apply.stdout}`).toEqual([]);
      }
    }
  }, 180_000);
});
