// agentform check, and the safety review in plan and apply, end to end: the real CLI against the
// local control plane, on a production environment (test/fixtures/safety/project).
import { readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO, calledRpcs, copyExample, runCli } from '../helpers/cli.js';

const FIXTURE = join(REPO, 'test', 'fixtures', 'safety', 'project');
const planSchema = new Ajv2020({ allErrors: true, strict: true }).compile(JSON.parse(readFileSync(join(REPO, 'schemas', 'plan.schema.json'), 'utf8')));

async function copyFixture(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentform-safety-'));
  await cp(FIXTURE, dir, { recursive: true });
  return dir;
}

/** Lets delete_repo run without asking the hook. */
async function allowDeleteRepo(dir: string): Promise<void> {
  const text = await readFile(join(dir, 'agents.yaml'), 'utf8');
  await writeFile(join(dir, 'agents.yaml'), text.replace('      default: allow\n', '      default: allow\n      byTool:\n        delete_repo: allow\n'));
}

/** The support agent without its hook: every tool call runs unchecked (offline; apply would keep the remote hook). */
async function dropHook(dir: string): Promise<void> {
  const text = await readFile(join(dir, 'agents.yaml'), 'utf8');
  await writeFile(join(dir, 'agents.yaml'), text.replace('      hook:\n        connection: github\n', ''));
}

describe('agentform check (offline)', () => {
  it('a clean production project: exit 0', async () => {
    const result = await runCli(['check', await copyFixture()]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Policy: 0 errors, 0 warnings (environment prod, kind production).');
  });

  it('the quickstart (a dev environment) passes with warnings only', async () => {
    const result = await runCli(['check', await copyExample('quickstart')]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/agentform\.yaml:\d+:\d+: warning \[environment-spend-caps-missing\] environment\/dev/);
  });

  it('errors in production: located lines, exit 1, and --json with the same findings', async () => {
    const dir = await copyFixture();
    await dropHook(dir);
    const result = await runCli(['check', dir, '-e', 'prod']);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toMatch(/agents\.yaml:\d+:\d+: error \[default-allow-without-hook\] agent\/support: /);
    expect(result.stdout).toContain('[destructive-tool-without-decision] agent/support: github.delete_repo (destructive) runs without a decision');
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
    const json = await runCli(['check', dir, '--json']);
    expect(json.code).toBe(1);
    const parsed = JSON.parse(json.stdout) as { counts: { errors: number }; findings: Array<{ rule: string; file: string; line: number }> };
    expect(parsed.counts.errors).toBe(2);
    expect(parsed.findings.map((finding) => finding.rule).sort()).toEqual(['default-allow-without-hook', 'destructive-tool-without-decision']);
    expect(parsed.findings[0]?.file).toMatch(/agents\.yaml$/);
  });

  it('strictTools: check judges the policy derived from the lock (default deny), as plan and apply send it', async () => {
    const dir = await copyFixture();
    await dropHook(dir);
    const root = join(dir, 'agentform.yaml');
    await writeFile(root, (await readFile(root, 'utf8')).replace('    url: local\n', '    url: local\n    strictTools: true\n'));
    const result = await runCli(['check', dir, '--json']);
    const rules = (JSON.parse(result.stdout) as { findings: Array<{ rule: string }> }).findings.map((finding) => finding.rule);
    // The derived default is deny; the locked delete_repo still runs without a decision (derived allow).
    expect(rules).not.toContain('default-allow-without-hook');
    expect(rules).toContain('destructive-tool-without-decision');
  });

  it('a suppression with its reason is listed and no longer fails; severity off hides a rule', async () => {
    const dir = await copyFixture();
    await dropHook(dir);
    const agents = await readFile(join(dir, 'agents.yaml'), 'utf8');
    await writeFile(
      join(dir, 'agents.yaml'),
      `${agents}suppress:\n  - rule: destructive-tool-without-decision\n    reason: delete_repo is fenced by the GitHub app's own permissions\n`,
    );
    const root = await readFile(join(dir, 'agentform.yaml'), 'utf8');
    await writeFile(join(dir, 'agentform.yaml'), `${root}policy:\n  rules:\n    default-allow-without-hook: {prod: warning}\n`);
    const result = await runCli(['check', dir]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "suppressed [destructive-tool-without-decision] agent/support: github.delete_repo (destructive) runs without a decision: add a hook, or set policies.toolCalls.byTool to deny or ask (suppressed: delete_repo is fenced by the GitHub app's own permissions)",
    );
    expect(result.stdout).toMatch(/warning \[default-allow-without-hook\]/);
    expect(result.stdout).toContain('Policy: 0 errors, 1 warning, 1 suppressed');
  });

  it('bad policy configuration: located errors, exit 1', async () => {
    const dir = await copyFixture();
    const root = await readFile(join(dir, 'agentform.yaml'), 'utf8');
    await writeFile(
      join(dir, 'agentform.yaml'),
      `${root}policy:\n  rules:\n    limits-mising: error\n  custom:\n    - id: broken\n      message: m\n      severity: error\n      kinds: [agent]\n      schema: {type: nope}\n`,
    );
    const agents = await readFile(join(dir, 'agents.yaml'), 'utf8');
    await writeFile(join(dir, 'agents.yaml'), `${agents}suppress:\n  - rule: limits-missing\n    reason: ""\n`);
    const schemaProblem = await runCli(['check', dir]);
    expect(schemaProblem.code).toBe(1);
    expect(schemaProblem.stderr + schemaProblem.stdout).toMatch(/agents\.yaml:\d+:\d+: .*suppress\[0\]\.reason/);
    await writeFile(join(dir, 'agents.yaml'), agents);
    const result = await runCli(['check', dir]);
    expect(result.code).toBe(1);
    const output = result.stderr + result.stdout;
    expect(output).toMatch(/agentform\.yaml:\d+:\d+: policy\.rules: unknown rule "limits-mising"; did you mean "limits-missing"\?/);
    expect(output).toMatch(/agentform\.yaml:\d+:\d+: custom rule broken: its schema does not compile/);
  });

  it('runs a custom rule on the configuration', async () => {
    const dir = await copyFixture();
    const root = await readFile(join(dir, 'agentform.yaml'), 'utf8');
    await writeFile(
      join(dir, 'agentform.yaml'),
      `${root}policy:\n  custom:\n    - id: connections-use-https\n      message: tool servers are reached over https\n      severity: {prod: error}\n      kinds: [connection]\n      schema: {properties: {url: {pattern: '^https://'}}}\n`,
    );
    const result = await runCli(['check', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /platform\.yaml:\d+:\d+: error \[connections-use-https\] connection\/github: tool servers are reached over https \(url must match pattern/,
    );
  });
});

describe('plan and apply with the safety review (local control plane)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await copyFixture();
    const applied = await runCli(['apply', dir, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  });

  it('plan shows what the agent can newly do without a decision, and the findings', async () => {
    await allowDeleteRepo(dir);
    const result = await runCli(['plan', dir]);
    // The plan whole, then exit 1: apply would refuse it on the error.
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stderr).toContain('agentform: the plan for prod has 1 policy error; apply would refuse it');
    expect(result.stdout).toContain('support: ~ github.delete_repo (destructive) now runs without a decision (was decided by a hook)');
    expect(result.stdout).not.toContain('github.search');
    expect(result.stdout).toMatch(/agents\.yaml:\d+:\d+: error \[destructive-tool-without-decision\] agent\/support: github\.delete_repo/);
    expect(result.stdout).toContain('Policy: 1 error, 0 warnings (environment prod, kind production).');
  });

  it('a hook removed from the YAML is kept by apply (capabilities unchanged), but the rules judge the configuration, as check does', async () => {
    const other = await copyFixture();
    expect((await runCli(['apply', other, '--auto-approve'])).code).toBe(0);
    await dropHook(other);
    const result = await runCli(['plan', other]);
    expect(result.stdout).toContain('Capabilities: unchanged.');
    expect(result.stdout).toContain('Policy: 2 errors, 0 warnings');
    const check = await runCli(['check', other]);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('Policy: 2 errors, 0 warnings');
  });

  it('plan --json carries the safety key, valid against schemas/plan.schema.json', async () => {
    const result = await runCli(['plan', dir, '--json']);
    const plan = JSON.parse(result.stdout);
    expect(planSchema(plan), JSON.stringify(planSchema.errors)).toBe(true);
    expect(plan.safety.counts.errors).toBe(1);
    expect(plan.safety.capabilityChanges[0]).toMatchObject({ agent: 'support', status: 'changed' });
    expect(plan.safety.capabilityChanges[0].changes).toContainEqual({
      change: 'changed',
      tool: 'github.delete_repo',
      via: [],
      before: { decision: 'hook', effect: 'destructive' },
      after: { decision: 'allowed', effect: 'destructive' },
    });
  });

  it('plan --markdown has the capability table and findings; GitHub annotations on request', async () => {
    const result = await runCli(['plan', dir, '--markdown'], { env: { GITHUB_ACTIONS: 'true' } });
    expect(result.stdout).toContain('#### Capability changes');
    expect(result.stdout).toContain('| `github.delete_repo` | destructive | ⚠️ no decision |');
    expect(result.stdout).toContain('#### Policy findings');
    expect(result.stderr).toMatch(/^::error file=[^,]*agents\.yaml,line=\d+,col=\d+::\[destructive-tool-without-decision\] agent\/support: /m);
  });

  it('plan appends its Markdown to $GITHUB_STEP_SUMMARY (GitHub Actions), after what earlier steps wrote', async () => {
    const summary = join(dir, 'step-summary.md');
    await writeFile(summary, '## earlier step\n');
    const result = await runCli(['plan', dir], { env: { GITHUB_STEP_SUMMARY: summary } });
    // Written although the plan fails (its error finding): the summary is where a job's reader looks.
    expect(result.code).toBe(1);
    const text = await readFile(summary, 'utf8');
    expect(text.startsWith('## earlier step\n')).toBe(true);
    expect(text).toContain('#### Capability changes');
    expect(result.stdout).not.toContain('#### Capability changes');
  });

  it('apply refuses while an error-severity finding stands, and writes nothing', async () => {
    const result = await runCli(['apply', dir, '--auto-approve', '--debug']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refusing to apply: 1 policy error in environment prod (nothing was changed)');
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(calledRpcs(result.stderr).filter((rpc) => !/\.(list|get|models|events|pending)$/.test(rpc))).toEqual([]);
    const plan = JSON.parse((await runCli(['plan', dir, '--json'])).stdout);
    expect(plan.summary.change).toBe(1); // still to do
  });
});

describe("promote: the capability diff between the source version and the target, and the target's policy", () => {
  /** The fixture with a staging environment whose overlay `staging` is applied to both environments. */
  async function withStaging(overlay: string): Promise<string> {
    const dir = await copyFixture();
    const root = await readFile(join(dir, 'agentform.yaml'), 'utf8');
    await writeFile(join(dir, 'agentform.yaml'), root.replace('defaultEnvironment: prod', '  staging:\n    url: local\ndefaultEnvironment: prod'));
    const agents = await readFile(join(dir, 'agents.yaml'), 'utf8');
    await writeFile(join(dir, 'agents.yaml'), `${agents}overlays:\n  staging:\n${overlay}`);
    for (const environment of ['prod', 'staging']) {
      const applied = await runCli(['apply', dir, '-e', environment, '--auto-approve']);
      expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    }
    return dir;
  }

  it('a staging version that lets delete_repo run unchecked: shown, and refused for prod with nothing written', async () => {
    const dir = await withStaging('    policies:\n      toolCalls:\n        byTool:\n          delete_repo: allow\n');
    const promote = await runCli(['promote', 'support', '--from', 'staging', '--to', 'prod', '-C', dir, '--auto-approve', '--debug']);
    expect(promote.code).toBe(1);
    expect(promote.stdout).toContain('support: ~ github.delete_repo (destructive) now runs without a decision (was decided by a hook)');
    expect(promote.stdout).toMatch(/agents\.yaml:\d+:\d+: error \[destructive-tool-without-decision\] agent\/support: github\.delete_repo/);
    expect(promote.stderr).toContain('refusing to promote: 1 policy error in environment prod (nothing was changed)');
    expect(calledRpcs(promote.stderr)).not.toContain('agents.upsert');
    const history = JSON.parse((await runCli(['history', 'support', '-e', 'prod', '-C', dir, '--json'])).stdout) as { versions: unknown[] };
    expect(history.versions).toHaveLength(1);
  }, 60_000);

  it('a staging version within the rules is promoted, its capabilities shown unchanged', async () => {
    const dir = await withStaging('    limits:\n      maxTurns: 12\n');
    const promote = ['promote', 'support', '--from', 'staging', '--to', 'prod', '-C', dir, '--auto-approve'];
    // The rules pass; then, as for apply, the connection the agent uses must serve what the lock
    // records, and the fixture's github server (port 9) cannot be read: refused, nothing written.
    const locked = await runCli(promote);
    expect(locked.code, locked.stdout + locked.stderr).toBe(1);
    expect(locked.stdout).toContain('Capabilities: unchanged.');
    expect(locked.stderr).not.toContain('policy error');
    expect(locked.stderr).toContain('refusing to promote: the tool surface of a connection that changed agents use differs from agentform.lock.yaml');
    expect(locked.stderr).toContain('connection github: cannot read its tools to compare them with the lock');
    // Without a lock the connection is not checked (a warning), and the promotion goes through.
    await rm(join(dir, 'agentform.lock.yaml'));
    const unlocked = await runCli(promote);
    expect(unlocked.code, unlocked.stdout + unlocked.stderr).toBe(0);
    expect(unlocked.stderr).toContain('warning: connection github is not locked: cannot read its tools');
    expect(unlocked.stdout).toMatch(/Promoted support: staging v\d+ → prod v2/);
  }, 60_000);
});
