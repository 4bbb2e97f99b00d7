// Rules over the plan (issue 48), end to end: the real CLI against a local control plane on
// 127.0.0.1, under the profile of the vitest project. Configured to refuse in prod and warn in dev,
// a destroy refuses apply (fresh and a saved plan) in prod, a custom rule over the plan's changes
// refuses a promote (nothing is written), while a rollback or a promote from dev is not judged on
// dev's configured model. The findings show in plan's text, JSON and Markdown like every other finding,
// and plan exits 1 where apply would refuse (one verdict), after printing and saving the whole plan.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ControlApiClient } from '../../src/api/client.js';
import { latestAgentVersion } from '../../src/state/agents.js';
import { READ_RPC, calledRpcs, runCli } from '../helpers/cli.js';
import { startScratchPlane } from '../helpers/local-api.js';

const ROOT = `version: 1
policy:
  rules:
    plan-destroy: {prod: error, '*': warning}
    plan-model-not-in-earlier-environment: {prod: error, '*': warning}
  plan:
    modelsFrom: {prod: dev}
    custom:
      - id: prompt-change-reviewed
        message: a system prompt change needs the prompt team's review
        severity: {prod: error, '*': warning}
        schema:
          if: {properties: {action: {const: update}}}
          then:
            properties:
              fields: {not: {contains: {properties: {path: {const: system}}, required: [path]}}}
environments:
  dev:
    url: local
    prune: true
  prod:
    url: local
    prune: true
`;

const PROVIDER = 'kind: Provider\nname: openai\nspec:\n  type: openai\n  secret: ${env:OPENAI_API_KEY:-sk-test-provider}\n';
const agent = (name: string, options: { model?: string; system?: string } = {}) =>
  `kind: Agent\nname: ${name}\nspec:\n  model: {provider: openai, model: ${options.model ?? 'gpt-4o-mini'}}\n  system: ${JSON.stringify(options.system ?? 'You are helpful.')}\n  tools: []\n  policies: {}\n  limits: {maxTurns: 5}\n`;

interface Plane {
  prod: ControlApiClient;
  env: NodeJS.ProcessEnv;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function startPlane(): Promise<Plane> {
  const plane = await startScratchPlane(['dev', 'prod']);
  cleanups.push(plane.close);
  return { prod: plane.clients.prod as ControlApiClient, env: plane.env };
}

async function project(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'agentform-plan-rules-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'agentform.yaml'), ROOT);
  await writeFile(join(dir, 'openai.yaml'), PROVIDER);
  await writeFile(join(dir, 'support.yaml'), agent('support'));
  await writeFile(join(dir, 'old.yaml'), agent('old'));
  return dir;
}

const writes = (stderr: string) => calledRpcs(stderr).filter((rpc) => !READ_RPC.test(rpc));
const liveAgents = async (client: ControlApiClient) => (await client.agentsList()).map((item) => item.slug).sort();

async function applyBoth(dir: string, plane: Plane): Promise<void> {
  for (const environment of ['dev', 'prod']) {
    const apply = await runCli(['apply', dir, '-e', environment, '--auto-approve'], { env: plane.env });
    expect(apply.code, `${environment}: ${apply.stdout}${apply.stderr}`).toBe(0);
  }
}

/** Both environments applied, then agent/old's document removed: a destroy, an error in prod only. */
async function destroyingOld(): Promise<{ plane: Plane; dir: string }> {
  const plane = await startPlane();
  const dir = await project();
  await applyBoth(dir, plane);
  await rm(join(dir, 'old.yaml'));
  return { plane, dir };
}

/** What plan says on stderr when apply would refuse its plan of `environment`. */
const refusedLine = (environment: string) => `agentform: the plan for ${environment} has 1 policy error; apply would refuse it (see the findings above)`;

describe('a destroy in prod', () => {
  it('is an error finding in plan, which exits 1, refuses apply and a saved plan there unless suppressed, and only warns in dev', async () => {
    const { plane, dir } = await destroyingOld();

    // plan gives apply's verdict in its exit code, after the whole plan: 1, with the reason on stderr.
    const text = await runCli(['plan', dir, '-e', 'prod'], { env: plane.env });
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toContain('error [plan-destroy] agent/old: the plan destroys it in prod');
    expect(text.stdout).toContain('Plan: 0 to add, 0 to change, 0 to replace, 1 to destroy.');
    expect(text.stderr).toContain(refusedLine('prod'));
    // --detailed-exitcode's 2 means "changes apply would make": a plan apply refuses is 1 there too.
    const json = await runCli(['plan', dir, '-e', 'prod', '--json', '--detailed-exitcode'], { env: plane.env });
    expect(json.code, json.stderr).toBe(1);
    // Under --json, as every error: one JSON object on stderr, the code apply's refusal has.
    expect(JSON.parse(json.stderr)).toEqual({
      error: expect.objectContaining({
        code: 'policy_refused',
        message: expect.stringContaining('the plan for prod has 1 policy error; apply would refuse it'),
      }),
    });
    const safety = (JSON.parse(json.stdout) as { safety: { counts: { errors: number }; findings: Array<Record<string, unknown>> } }).safety;
    expect(safety.findings).toContainEqual(expect.objectContaining({ rule: 'plan-destroy', severity: 'error', address: 'agent/old' }));
    expect(safety.counts.errors).toBe(1);
    const summary = join(dir, 'step-summary.md');
    const markdown = await runCli(['plan', dir, '-e', 'prod', '--markdown'], { env: { ...plane.env, GITHUB_STEP_SUMMARY: summary } });
    expect(markdown.code, markdown.stderr).toBe(1);
    expect(markdown.stdout.startsWith('<!-- agentform-plan:prod -->\n')).toBe(true);
    expect(markdown.stdout).toContain('plan-destroy');
    // First in the comment, so that a cut comment still says why the job fails; the stderr line stays on stderr.
    expect(markdown.stdout).toContain('apply would refuse this plan: 1 policy error');
    expect(markdown.stdout).not.toContain(refusedLine('prod'));
    expect(markdown.stderr).toContain(refusedLine('prod'));
    expect(readFileSync(summary, 'utf8')).toContain('plan-destroy');

    const apply = await runCli(['apply', dir, '-e', 'prod', '--auto-approve', '--debug'], { env: plane.env });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('refusing to apply: 1 policy error in environment prod (nothing was changed)');
    expect(apply.stderr).toContain('[plan-destroy] agent/old');
    expect(writes(apply.stderr)).toEqual([]);

    // Saved all the same: a plan file is the plan, whatever the verdict (apply judges it again).
    const out = join(dir, 'plan.json');
    const planned = await runCli(['plan', dir, '-e', 'prod', '--out', out], { env: plane.env });
    expect(planned.code, planned.stderr).toBe(1);
    expect(existsSync(out)).toBe(true);
    // The log does not suggest the apply it then refuses.
    expect(planned.stderr).toContain(`Saved the plan to ${out}; apply would refuse it until its policy errors are fixed`);
    expect(planned.stderr).not.toContain('apply it with');
    const saved = await runCli(['apply', out, '--debug'], { env: plane.env });
    expect(saved.code).toBe(1);
    expect(saved.stderr).toContain('[plan-destroy] agent/old');
    expect(writes(saved.stderr)).toEqual([]);
    expect(await liveAgents(plane.prod)).toEqual(['old', 'support']);

    // Accepted on the environment, naming the resource whose document is gone: the destroy goes through.
    await writeFile(join(dir, 'agentform.yaml'), `${ROOT}    suppress:\n      - {rule: plan-destroy, reason: old is retired, address: agent/old}\n`);
    const accepted = await runCli(['plan', dir, '-e', 'prod', '--detailed-exitcode'], { env: plane.env });
    expect(accepted.stdout).toContain('suppressed [plan-destroy] agent/old: the plan destroys it in prod (suppressed: old is retired)');
    expect(accepted.code, accepted.stderr).toBe(2);
    expect(accepted.stderr).not.toContain('apply would refuse');
    const applied = await runCli(['apply', dir, '-e', 'prod', '--auto-approve'], { env: plane.env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(await liveAgents(plane.prod)).toEqual(['support']);

    const devPlan = await runCli(['plan', dir, '-e', 'dev'], { env: plane.env });
    expect(devPlan.stdout).toContain('warning [plan-destroy] agent/old: the plan destroys it in dev');
    expect(devPlan.code, devPlan.stderr).toBe(0);
    const dev = await runCli(['apply', dir, '-e', 'dev', '--auto-approve'], { env: plane.env });
    expect(dev.code, dev.stderr).toBe(0);
  });

  // One verdict for a saved plan: apply judges the changes the file holds, as plan judged them, not
  // a fresh plan that knows neither its --target nor its --base.
  it('apply judges a saved plan as it was saved: what --target left out is not judged', async () => {
    const plane = await startPlane();
    const dir = await project();
    await applyBoth(dir, plane);
    const root = ROOT.replace('    plan-destroy:', '    plan-changed-agents: {prod: error}\n    plan-destroy:').replace(
      '  plan:\n',
      '  plan:\n    maxChangedAgents: 1\n',
    );
    await writeFile(join(dir, 'agentform.yaml'), root);
    for (const name of ['support', 'old']) await writeFile(join(dir, `${name}.yaml`), agent(name).replace('maxTurns: 5', 'maxTurns: 6'));
    const whole = join(dir, 'whole.json');
    const planned = await runCli(['plan', dir, '-e', 'prod', '--out', whole], { env: plane.env });
    expect(planned.code, planned.stderr).toBe(1);
    expect(planned.stdout).toContain('plan-changed-agents');
    const refused = await runCli(['apply', whole], { env: plane.env });
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain('[plan-changed-agents]');
    const targeted = join(dir, 'targeted.json');
    const one = await runCli(['plan', dir, '-e', 'prod', '--target', 'agent/support', '--out', targeted], { env: plane.env });
    expect(one.code, one.stderr).toBe(0);
    const applied = await runCli(['apply', targeted], { env: plane.env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('1 changed');
  });

  it('fails plan --all-envs and --envs naming prod, after the whole comment and every saved plan; dev alone passes', async () => {
    const { plane, dir } = await destroyingOld();
    const out = join(dir, 'plan-{env}.json');
    const all = await runCli(['plan', dir, '--all-envs', '--markdown', '--detailed-exitcode', '--out', out], { env: plane.env });
    expect(all.code, all.stderr).toBe(1);
    expect(all.stdout.split('\n')[0]).toBe('<!-- agentform-plan -->');
    for (const environment of ['dev', 'prod']) {
      expect(all.stdout).toContain(`### agentform plan: \`${environment}\``);
      expect(existsSync(join(dir, `plan-${environment}.json`)), environment).toBe(true);
    }
    // Each saved plan's line says whether apply takes it: dev's does, prod's would be refused.
    expect(all.stderr).toContain(`apply it with: agentform apply ${join(dir, 'plan-dev.json')}`);
    expect(all.stderr).toContain(`Saved the plan to ${join(dir, 'plan-prod.json')}; apply would refuse it until its policy errors are fixed`);
    expect(all.stdout).toContain('| ❌ error | `plan-destroy` | `agent/old` |');
    expect(all.stderr).toContain(refusedLine('prod'));
    expect(all.stderr).not.toContain('the plan for dev');

    const json = await runCli(['plan', dir, '--envs', 'prod,dev', '--json'], { env: plane.env });
    expect(json.code, json.stderr).toBe(1);
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain('"rule":"plan-destroy","severity":"error"');
    expect(JSON.parse(json.stderr)).toEqual({
      error: expect.objectContaining({ code: 'policy_refused', message: expect.stringContaining('the plan for prod has 1 policy error') }),
    });

    // dev only warns: a plan apply takes, so 2 (changes) and no refusal.
    const dev = await runCli(['plan', dir, '--envs', 'dev', '--detailed-exitcode'], { env: plane.env });
    expect(dev.code, dev.stderr).toBe(2);
    expect(dev.stdout).toContain('warning [plan-destroy] agent/old');
    expect(dev.stderr).not.toContain('apply would refuse');
  });
});

describe('promote and rollback', () => {
  it('a promote a custom rule over the plan refuses in prod (a warning in dev)', async () => {
    const plane = await startPlane();
    const dir = await project();
    await applyBoth(dir, plane);
    await writeFile(join(dir, 'support.yaml'), agent('support', { system: 'You are terse.' }));
    const devPlan = await runCli(['plan', dir, '-e', 'dev'], { env: plane.env });
    expect(devPlan.stdout).toContain("warning [prompt-change-reviewed] agent/support: a system prompt change needs the prompt team's review");
    const dev = await runCli(['apply', dir, '-e', 'dev', '--auto-approve'], { env: plane.env });
    expect(dev.code, dev.stderr).toBe(0);

    const promote = await runCli(['promote', 'support', '--from', 'dev', '--to', 'prod', '-C', dir, '--auto-approve', '--debug'], { env: plane.env });
    expect(promote.code).toBe(1);
    expect(promote.stderr).toContain('refusing to promote: 1 policy error in environment prod');
    expect(promote.stderr).toContain('[prompt-change-reviewed] agent/support');
    expect(writes(promote.stderr)).toEqual([]);
    expect((await latestAgentVersion(plane.prod, 'support'))?.version).toBe(1);
  });

  it("neither a rollback (the emergency path) nor a promote from dev itself is judged on dev's configured model", async () => {
    const plane = await startPlane();
    const dir = await project();
    await applyBoth(dir, plane);
    // The new model reaches dev's configuration first, then prod: both pass.
    await writeFile(join(dir, 'support.yaml'), agent('support', { model: 'gpt-4o' }));
    await applyBoth(dir, plane);
    expect((await latestAgentVersion(plane.prod, 'support'))?.version).toBe(2);

    // Back to the model dev's configuration no longer has: a rollback goes through.
    const rollback = await runCli(['rollback', 'support', '--to', '1', '-e', 'prod', '-C', dir, '--auto-approve'], { env: plane.env });
    expect(rollback.code, rollback.stdout + rollback.stderr).toBe(0);
    expect(rollback.stdout + rollback.stderr).not.toContain('plan-model-not-in-earlier-environment');
    expect((await latestAgentVersion(plane.prod, 'support'))?.version).toBe(3);

    // dev runs gpt-4o while its configuration moved on: promoting what dev runs is not refused.
    await writeFile(join(dir, 'support.yaml'), agent('support', { model: 'gpt-5' }));
    const promote = await runCli(['promote', 'support', '--from', 'dev', '--to', 'prod', '-C', dir, '--auto-approve'], { env: plane.env });
    expect(promote.code, promote.stdout + promote.stderr).toBe(0);
    expect(promote.stdout + promote.stderr).not.toContain('plan-model-not-in-earlier-environment');
  });
});

describe('the earlier environment needs none of its ${env:} values', () => {
  it("a model dev declares is confirmed without dev's variables; one that reads them is unknown, not undeclared", async () => {
    const plane = await startPlane();
    const dir = await project();
    await applyBoth(dir, plane);
    // Only dev's job sets DEV_PROMPT and DEV_MODEL: prod's run compares with dev's configuration without them.
    const devOnly = (name: string, model: string) =>
      `${agent(name, { model: 'gpt-4o' })}overlays:\n  dev:\n    system: \${env:DEV_PROMPT}\n    model:\n      model: ${model}\n`;
    await writeFile(join(dir, 'support.yaml'), devOnly('support', 'gpt-4o'));
    await writeFile(join(dir, 'old.yaml'), devOnly('old', '${env:DEV_MODEL}'));
    const plan = await runCli(['plan', dir, '-e', 'prod'], { env: plane.env });
    // agent/old's unknown model is an error in prod: apply would refuse, so plan exits 1.
    expect(plan.code, plan.stderr).toBe(1);
    expect(plan.stderr).toContain(refusedLine('prod'));
    expect(plan.stdout).not.toContain('[plan-model-not-in-earlier-environment] agent/support');
    expect(plan.stdout).toContain(
      "error [plan-model-not-in-earlier-environment] agent/old: the model changes to openai/gpt-4o, not yet in dev: dev's model of agent old is not known here (it reads an ${env:} variable this run does not set)",
    );
    expect(plan.stdout).not.toContain('does not declare');
  });
});

describe('the configuration of the plan rules', () => {
  it('check accepts it and runs no plan rule (it has no plan)', async () => {
    const dir = await project();
    const check = await runCli(['check', dir, '-e', 'prod']);
    expect(check.stdout).not.toContain('[plan-');
    expect(check.stdout).not.toContain('prompt-change-reviewed');
  });

  it('an unknown environment, a built-in id and a schema that does not compile are located errors', async () => {
    const dir = await project();
    const broken = ROOT.replace('modelsFrom: {prod: dev}', 'modelsFrom: {prod: staging}')
      .replace('id: prompt-change-reviewed', 'id: plan-destroy')
      .replace('if: {properties: {action: {const: update}}}', 'type: nope');
    await writeFile(join(dir, 'agentform.yaml'), broken);
    const check = await runCli(['check', dir, '-e', 'prod']);
    expect(check.code).toBe(1);
    const output = check.stdout + check.stderr;
    expect(output).toMatch(/agentform\.yaml:7:24: policy\.plan\.modelsFrom: unknown environment "staging"/);
    expect(output).toMatch(/agentform\.yaml:\d+:\d+: policy\.plan\.custom: "plan-destroy" is a built-in rule/);
    expect(output).toMatch(/agentform\.yaml:\d+:\d+: custom rule plan-destroy: its schema does not compile/);
  });
});
