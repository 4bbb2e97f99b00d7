// The CI recipes are exercised, not just shipped: every `npx agentform …` line of the GitHub
// Actions workflows runs, in workflow order, against examples/gitops on the local control plane,
// with the secrets the workflows pass set to local values and with the same exit-code handling.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO, copyExample, runCli } from '../helpers/cli.js';

interface Step {
  run?: string;
}
interface Workflow {
  jobs: Record<string, { steps: Step[] }>;
}

/** The agentform invocations of a workflow, with the matrix environment filled in. */
async function invocations(file: string, environment: string): Promise<string[][]> {
  const workflow = parse(await readFile(join(REPO, 'examples', 'github-actions', '.github', 'workflows', file), 'utf8')) as Workflow;
  const lines = Object.values(workflow.jobs)
    .flatMap((job) => job.steps)
    .flatMap((step) => (step.run ?? '').split('\n'))
    .map((line) => line.trim())
    .filter((line) => line.startsWith('npx agentform '));
  return lines.map((line) =>
    line
      .replace(/\$\{\{ matrix\.environment \}\}/g, environment)
      .replace(/\s*>.*$/, '')
      .split(/\s+/)
      .slice(2),
  );
}

describe('the GitHub Actions recipes run against examples/gitops', () => {
  let dir: string;
  // The workflows hand agentform AGENTFORM_TOKEN_<ENV>; here the environment URLs point at the local
  // control plane instead (which brings its own keys), and the example's secrets get local values.
  const env = {
    AGENTFORM_URL_STAGING: 'local',
    OPENAI_API_KEY: 'local-openai',
    ANTHROPIC_API_KEY: 'local-anthropic',
    CRM_SUPPORT_TOKEN: 'local-crm',
    NPM_TOKEN: 'local-npm',
  };
  beforeAll(async () => {
    dir = await copyExample('gitops');
  });

  it('plan on a pull request: validate passes, plan exits 2 with changes and writes Markdown and a saved plan', async () => {
    const steps = await invocations('agentform-plan.yml', 'staging');
    expect(steps.map((args) => args[0])).toEqual(['validate', 'plan']);
    expect((await runCli(steps[0] as string[], { cwd: dir, env })).code).toBe(0);
    const plan = await runCli(steps[1] as string[], { cwd: dir, env });
    expect(plan.code, plan.stderr).toBe(2); // the workflow treats 2 as "changes", not failure
    expect(plan.stdout).toContain('Plan:');
    expect(plan.stdout).toContain('<details>');
    expect(JSON.parse(await readFile(join(dir, 'plan-staging.json'), 'utf8'))).toMatchObject({ environment: 'staging' });
  });

  it('apply on merge converges, and the nightly drift check is then clean (exit 0)', async () => {
    const [apply] = await invocations('agentform-apply.yml', 'staging');
    expect(apply?.slice(0, 1)).toEqual(['apply']);
    const applied = await runCli(apply as string[], { cwd: dir, env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Apply complete!');

    const [drift] = await invocations('agentform-drift.yml', 'staging');
    const clean = await runCli(drift as string[], { cwd: dir, env });
    expect(clean.code, clean.stdout).toBe(0);
  });
});
