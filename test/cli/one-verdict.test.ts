// One verdict (issue 44): for every built-in rule, a project that leaves the rule's input to the
// server gets the same verdict from check (offline), plan, apply and a saved plan, before the
// first apply and after one, and from promote and rollback, whatever the server fills in (plan by its
// exit code, after printing and saving the plan; with every rule lowered, a warning fails nothing). Runs
// under both server profiles: the default one fills permissive values (allow, unrestricted), the
// pessimistic one others (deny, allowlist).
import { mkdtempSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, type ExpectStatic, it } from 'vitest';
import { BUILTIN_RULE_IDS } from '../../src/engine/policy/index.js';
import { runCli } from '../helpers/cli.js';

const GOOD_POLICIES = '  policies:\n    toolCalls: {default: deny, onError: deny, onTimeout: deny}\n    decisions: {onExpire: deny}\n';
const LIMITS = '  limits: {maxTurns: 5, maxInputTokensPerSession: 10000}\n';
const agent = (name: string, body: string) =>
  `kind: Agent\nname: ${name}\nspec:\n  model: {provider: openai, model: gpt-4o-mini}\n  system: Be brief.\n${body}`;
const CRM = (grants = '') => `kind: Connection\nname: crm\nspec:\n  url: http://127.0.0.1:9/mcp\n  auth: {type: svc-signed}\n${grants}`;
const GRANTS = '  grants:\n    - identity: {scope: user, id: alice}\n      accessToken: ${env:VERDICT_GRANT:-g}\n';

interface Case {
  /** Resource files besides the providers. */
  files: string;
  /** The environment's settings (spend caps unless the case is about them). */
  settings?: string;
}

/** Each rule's input left to the server: the rule must fire, at error in production, on every path. */
const LEFT_TO_THE_SERVER: Record<string, Case> = {
  'destructive-tool-without-decision': {
    files: `${CRM()}---\n${agent('bot', `  tools: [{type: connection, name: crm}]\n  policies:\n    toolCalls: {onError: deny, onTimeout: deny}\n    decisions: {onExpire: deny}\n${LIMITS}`)}`,
  },
  'default-allow-without-hook': { files: agent('bot', `  tools: []\n  policies:\n    toolCalls: {byTool: {}}\n    decisions: {onExpire: deny}\n${LIMITS}`) },
  'hook-fails-open': {
    files: `${CRM()}---\n${agent('bot', `  tools: []\n  policies:\n    toolCalls: {hook: {connection: crm}, default: ask, onTimeout: deny}\n    decisions: {onExpire: deny}\n${LIMITS}`)}`,
  },
  'decision-expiry-not-deny': { files: agent('bot', `  tools: []\n  policies:\n    toolCalls: {default: ask, onError: deny, onTimeout: deny}\n${LIMITS}`) },
  'sandbox-unrestricted-egress': { files: agent('bot', `  tools: []\n${GOOD_POLICIES}${LIMITS}  sandbox:\n    tools: {preset: read-only}\n`) },
  'sandbox-tools-too-wide': { files: agent('bot', `  tools: []\n${GOOD_POLICIES}${LIMITS}  sandbox:\n    network: {egress: {mode: allowlist}}\n`) },
  'limits-missing': { files: agent('bot', `  tools: []\n${GOOD_POLICIES}  limits: {maxTurns: 5}\n`) },
  'environment-spend-caps-missing': { files: agent('bot', `  tools: []\n${GOOD_POLICIES}${LIMITS}`), settings: '{kind: production}' },
  'key-spend-caps-missing': { files: 'kind: ApiKey\nname: dashboard\nspec:\n  scopes: [read]\n' },
  'control-key-without-expiry': { files: 'kind: ApiKey\nname: deployer\nspec:\n  scopes: [read, control]\n  spend: {dailyUsd: 1}\n' },
  'identity-not-required-with-grants': {
    files: `${CRM(GRANTS)}---\n${agent('bot', `  tools: [{type: connection, name: crm}]\n  policies:\n    toolCalls: {default: ask, onError: deny, onTimeout: deny}\n    decisions: {onExpire: deny}\n${LIMITS}`)}`,
  },
  'subagent-depth': {
    files: `${agent('helper', `  tools: []\n${GOOD_POLICIES}${LIMITS}`)}---\n${agent('bot', `  tools: []\n${GOOD_POLICIES}${LIMITS}  subagents:\n    - {kind: agent, name: helper, agent: helper}\n`)}`,
  },
  'fallback-provider-without-secret': {
    files: `kind: Provider\nname: backup\nspec:\n  type: openai\n---\n${agent('bot', `  tools: []\n${GOOD_POLICIES}${LIMITS}`).replace('model: {provider: openai, model: gpt-4o-mini}', 'model: {provider: openai, model: gpt-4o-mini, fallback: {models: [{provider: backup, model: gpt-4o-mini}]}}')}`,
  },
};

/** A safe agent to promote where the rule is about something else (a key, the environment). */
const COURIER = agent('courier', `  tools: []\n${GOOD_POLICIES}${LIMITS}`);
/** Staging's agent differs from production's, so that promote has a version to write. */
const STAGING_OVERLAY = 'overlays:\n  staging:\n    system: Be brief in staging.\n';

const PROVIDER = 'kind: Provider\nname: openai\nspec:\n  type: openai\n  secret: ${env:VERDICT_PROVIDER_SECRET:-sk-test}\n';
const EVERY_RULE_A_WARNING = `policy:\n  rules:\n${BUILTIN_RULE_IDS.map((id) => `    ${id}: warning\n`).join('')}`;
const root = (settings: string, lowered: boolean) =>
  `version: 1\norganization:\n  name: Verdict\n${lowered ? EVERY_RULE_A_WARNING : ''}environments:\n  staging:\n    url: local\n    settings: {spend: {dailyUsd: 5}}\n  production:\n    url: local\n    prune: true\n    settings: ${settings}\n`;

/** The case's files with the agent promote carries (bot when the case has one) given a staging overlay. */
function withPromotedAgent(files: string): { files: string; promoted: string } {
  const documents = files.split(/^---$/m);
  if (/^name: bot$/m.test(documents[documents.length - 1] ?? '')) return { files: `${files}${STAGING_OVERLAY}`, promoted: 'bot' };
  return { files: `${files}\n---\n${COURIER}${STAGING_OVERLAY}`, promoted: 'courier' };
}

async function project(item: Case): Promise<{ dir: string; lower(on: boolean): Promise<void>; promoted: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'agentform-verdict-'));
  const settings = item.settings ?? '{kind: production, spend: {dailyUsd: 5}}';
  const { files, promoted } = withPromotedAgent(item.files);
  await writeFile(join(dir, 'providers.yaml'), PROVIDER);
  await writeFile(join(dir, 'resources.yaml'), files);
  const lower = (on: boolean) => writeFile(join(dir, 'agentform.yaml'), root(settings, on));
  await lower(false);
  return { dir, lower, promoted };
}

/** The severity the named rule has in check's or plan's JSON, or undefined when it did not fire. */
function severityIn(json: string, rule: string, key?: 'safety'): string | undefined {
  const parsed = JSON.parse(json) as { findings?: Array<{ rule: string; severity: string }>; safety?: { findings: Array<{ rule: string; severity: string }> } };
  const findings = key ? parsed.safety?.findings : parsed.findings;
  return findings?.find((finding) => finding.rule === rule)?.severity;
}

/** validate, check, plan (exit 1, the plan saved), apply and a saved plan's apply all refuse on the rule (nothing written). */
async function expectEveryPathRefuses(expect: ExpectStatic, dir: string, rule: string, when: string): Promise<void> {
  const validate = await runCli(['validate', dir, '-e', 'production']);
  expect(validate.code, `${when}: validate\n${validate.stdout}${validate.stderr}`).toBe(1);
  expect(validate.stdout, `${when}: validate`).toMatch(new RegExp(`^\\S+\\.yaml:\\d+:\\d+: \\[${rule}\\] `, 'm'));
  const check = await runCli(['check', dir, '-e', 'production', '--json']);
  expect(check.code, `${when}: check\n${check.stderr}`).toBe(1);
  expect(severityIn(check.stdout, rule), `${when}: check`).toBe('error');
  const planFile = join(dir, 'verdict.plan');
  const plan = await runCli(['plan', dir, '-e', 'production', '--json', '--out', planFile]);
  expect(plan.code, `${when}: plan\n${plan.stderr}`).toBe(1);
  expect(severityIn(plan.stdout, rule, 'safety'), `${when}: plan`).toBe('error');
  expect(plan.stderr, `${when}: plan`).toMatch(/"code":"policy_refused".*the plan for production has \d+ policy errors?; apply would refuse it/);
  const saved = await runCli(['apply', planFile, '--auto-approve']);
  expect(saved.code, `${when}: saved plan\n${saved.stdout}${saved.stderr}`).toBe(1);
  expect(saved.stderr, `${when}: saved plan`).toContain(`[${rule}]`);
  const apply = await runCli(['apply', dir, '-e', 'production', '--auto-approve']);
  expect(apply.code, `${when}: apply\n${apply.stdout}${apply.stderr}`).toBe(1);
  expect(apply.stderr, `${when}: apply`).toMatch(new RegExp(`refusing to apply: .*\\[${rule}\\]`, 's'));
}

describe('one verdict on every path, before and after the first apply', () => {
  it('the table covers every built-in rule', () => {
    // grant-scope-not-allowed is a warning in production, and an unset scopesAllowed restricts nothing.
    expect(Object.keys(LEFT_TO_THE_SERVER).sort()).toEqual(BUILTIN_RULE_IDS.filter((id) => id !== 'grant-scope-not-allowed').sort());
  });

  // Each case is a project of its own (CLI children, each with its own local plane): a few at once.
  it.concurrent.for(Object.entries(LEFT_TO_THE_SERVER))('%s', { timeout: 240_000 }, async ([rule, item], { expect }) => {
    const { dir, lower, promoted } = await project(item);
    await expectEveryPathRefuses(expect, dir, rule, 'before any apply');
    // Applied with every rule a warning: the server fills in what the configuration left to it.
    await lower(true);
    // A warning is no refusal: plan passes, 2 for the changes apply would make.
    const warned = await runCli(['plan', dir, '-e', 'production', '--detailed-exitcode']);
    expect(warned.code, `warnings only: ${warned.stdout}${warned.stderr}`).toBe(2);
    for (const environment of ['production', 'staging']) {
      const applied = await runCli(['apply', dir, '-e', environment, '--auto-approve']);
      expect(applied.code, `${environment}: ${applied.stdout}${applied.stderr}`).toBe(0);
    }
    await lower(false);
    await expectEveryPathRefuses(expect, dir, rule, 'after an apply');

    // promote: staging's version is its configuration as applied, so the rules judge that
    // configuration, not the values staging's server filled in.
    const promote = ['promote', promoted, '--from', 'staging', '--to', 'production', '-C', dir, '--auto-approve'];
    const refusedPromote = await runCli(promote);
    expect(refusedPromote.code, `promote\n${refusedPromote.stdout}${refusedPromote.stderr}`).toBe(1);
    expect(refusedPromote.stderr, 'promote').toMatch(new RegExp(`refusing to promote: .*\\[${rule}\\]`, 's'));
    // rollback to the version the first apply made: that version is production's configuration.
    await lower(true);
    const lowered = await runCli(promote);
    expect(lowered.code, `promote, rules lowered\n${lowered.stdout}${lowered.stderr}`).toBe(0);
    await lower(false);
    const rollback = await runCli(['rollback', promoted, '--to', '1', '-C', dir, '-e', 'production', '--auto-approve']);
    expect(rollback.code, `rollback\n${rollback.stdout}${rollback.stderr}`).toBe(1);
    expect(rollback.stderr, 'rollback').toMatch(new RegExp(`refusing to roll back: .*\\[${rule}\\]`, 's'));
  });

  it('a project that sets every input passes on every path, and again after the server filled in the rest', async () => {
    const files = `${CRM()}---\n${agent('bot', `  tools: [{type: builtin, name: current_time}]\n  policies:\n    toolCalls: {hook: {connection: crm}, default: allow, onError: deny, onTimeout: deny}\n    decisions: {onExpire: deny}\n${LIMITS}  subagentPolicy: {selfDelegation: false, maxDepth: 2}\n  sandbox:\n    network: {egress: {mode: allowlist}}\n    tools: {preset: read-only}\n`)}`;
    const { dir } = await project({
      files: `${files}---\nkind: ApiKey\nname: deployer\nspec:\n  scopes: [read, control]\n  spend: {dailyUsd: 1}\n  expiresAt: '2099-01-01T00:00:00Z'\n`,
    });
    for (const round of ['first', 'second']) {
      const check = await runCli(['check', dir, '-e', 'production', '--json']);
      expect(check.code, `${round}: ${check.stdout}`).toBe(0);
      expect(JSON.parse(check.stdout).counts, round).toMatchObject({ errors: 0, warnings: 0 });
      const apply = await runCli(['apply', dir, '-e', 'production', '--auto-approve']);
      expect(apply.code, `${round}: ${apply.stdout}${apply.stderr}`).toBe(0);
    }
  }, 60_000);
});

describe('rollback is reviewed like any other change', () => {
  it('refuses to roll back to a version the rules refuse, before any write, with the capability change shown', async () => {
    // The definition rolled back to is complete (the server's version), every field judged as it is:
    // selfDelegation is set so that a server filling `true` (with a deep maxDepth) adds no finding.
    const bounded = '  subagentPolicy: {selfDelegation: false, maxDepth: 1}\n';
    const unsafe = agent(
      'bot',
      `  tools: [{type: builtin, name: current_time}]\n  policies:\n    toolCalls: {default: allow, onError: deny, onTimeout: deny}\n    decisions: {onExpire: deny}\n${LIMITS}${bounded}`,
    );
    const { dir, lower } = await project({ files: unsafe });
    await lower(true);
    expect((await runCli(['apply', dir, '-e', 'production', '--auto-approve'])).code).toBe(0);
    await writeFile(join(dir, 'resources.yaml'), agent('bot', `  tools: [{type: builtin, name: current_time}]\n${GOOD_POLICIES}${LIMITS}${bounded}`));
    await lower(false);
    expect((await runCli(['apply', dir, '-e', 'production', '--auto-approve'])).code).toBe(0);

    const rollback = await runCli(['rollback', 'bot', '--to', '1', '-C', dir, '-e', 'production', '--auto-approve']);
    expect(rollback.code, rollback.stdout + rollback.stderr).toBe(1);
    expect(rollback.stdout).toMatch(/builtin\.current_time \(read-only\) now runs without a decision \(was denied\)/);
    expect(rollback.stdout).toContain('[default-allow-without-hook]');
    expect(rollback.stderr).toMatch(/refusing to roll back: 1 policy error.*\[default-allow-without-hook\]/s);
    // Nothing was written: the live agent is still the configuration's.
    expect((await runCli(['plan', dir, '-e', 'production', '--detailed-exitcode'])).code).toBe(0);

    // Lowered for production, the same rollback goes through (and the YAML then disagrees).
    await lower(true);
    const allowed = await runCli(['rollback', 'bot', '--to', '1', '-C', dir, '-e', 'production', '--auto-approve']);
    expect(allowed.code, allowed.stdout + allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('Rolled back bot in production: v3 has the definition of v1.');
  }, 60_000);

  it('refuses to roll back to a version that uses a connection the environment no longer has', async () => {
    const bounded = '  subagentPolicy: {selfDelegation: false, maxDepth: 1}\n';
    const policies = '  policies:\n    toolCalls: {hook: {connection: crm}, default: ask, onError: deny, onTimeout: deny}\n    decisions: {onExpire: deny}\n';
    const { dir } = await project({ files: `${CRM()}---\n${agent('bot', `  tools: []\n${policies}${LIMITS}${bounded}`)}` });
    expect((await runCli(['apply', dir, '-e', 'production', '--auto-approve'])).code).toBe(0);
    // v2 stops using crm, and prune deletes it.
    await writeFile(join(dir, 'resources.yaml'), agent('bot', `  tools: []\n${GOOD_POLICIES}${LIMITS}${bounded}`));
    const pruned = await runCli(['apply', dir, '-e', 'production', '--auto-approve']);
    expect(pruned.code, pruned.stdout + pruned.stderr).toBe(0);
    expect(pruned.stdout).toContain('connection/crm');

    const rollback = await runCli(['rollback', 'bot', '--to', '1', '-C', dir, '-e', 'production', '--auto-approve']);
    expect(rollback.code, rollback.stdout + rollback.stderr).toBe(1);
    expect(rollback.stderr).toMatch(/agent bot uses connection crm \(policies\.toolCalls\.hook\.connection\), which production does not have/);
    expect((await runCli(['plan', dir, '-e', 'production', '--detailed-exitcode'])).code).toBe(0);
  }, 60_000);
});
