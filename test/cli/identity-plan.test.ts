// The identity dimension of plan, end to end against the local control plane (both profiles): who
// reaches which connection through which grant, what a change adds or removes, the widening rules,
// in text, JSON (valid against plan.schema.json) and Markdown, and never a grant's token.
import { readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO, runCli } from '../helpers/cli.js';

const FIXTURE = join(REPO, 'test', 'fixtures', 'safety', 'project');
const planSchema = new Ajv2020({ allErrors: true, strict: true }).compile(JSON.parse(readFileSync(join(REPO, 'schemas', 'plan.schema.json'), 'utf8')));
const TOKEN = 'grant-token-must-never-show';
const GRANTS = `  grants:\n    - identity: {scope: user, id: alice}\n      accessToken: \${env:IDENTITY_PLAN_TOKEN:-${TOKEN}}\n    - identity: {scope: team, id: ops}\n      accessToken: \${env:IDENTITY_PLAN_TOKEN:-${TOKEN}}\n`;

/** The support agent's identity settings, written out (each profile's server fills in others). */
async function setIdentity(dir: string, required: boolean): Promise<void> {
  const text = await readFile(join(dir, 'agents.yaml'), 'utf8');
  const without = text.replace(/ {2}identity: .*\n/, '');
  await writeFile(join(dir, 'agents.yaml'), without.replace('  limits:\n', `  identity: {required: ${required}, scopesAllowed: [user]}\n  limits:\n`));
}

async function addGrants(dir: string): Promise<void> {
  const text = await readFile(join(dir, 'platform.yaml'), 'utf8');
  await writeFile(join(dir, 'platform.yaml'), text.replace('    type: svc-signed\n', `    type: svc-signed\n${GRANTS}`));
}

describe('plan shows who reaches which connection through which grant', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentform-identity-'));
    await cp(FIXTURE, dir, { recursive: true });
    await setIdentity(dir, false);
    const applied = await runCli(['apply', dir, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  });

  it('grants added and identity.required turned on: text lines, the scope warning, no token', async () => {
    await addGrants(dir);
    await setIdentity(dir, true);
    const result = await runCli(['plan', dir]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(
      [
        'Identity changes (who reaches which connection, through which grant):',
        "  support: - anonymous no longer reaches github (2 tools) through the connection's own credential (identity not required)",
        "  support: + team:ops now reaches github (2 tools) through grant github:team:ops; scope team is not in support's identity.scopesAllowed [user]: assumed admitted (not shown)",
        '  support: + user:alice now reaches github (2 tools) through grant github:user:alice',
      ].join('\n'),
    );
    expect(result.stdout).toMatch(
      /platform\.yaml:\d+:\d+: warning \[grant-scope-not-allowed\] grant\/github:team:ops: scope team is not in identity\.scopesAllowed of agent support/,
    );
    expect(result.stdout).not.toContain('[identity-not-required-with-grants]');
    expect(result.stdout + result.stderr).not.toContain(TOKEN);

    const json = await runCli(['plan', dir, '--json']);
    const plan = JSON.parse(json.stdout);
    expect(planSchema(plan), JSON.stringify(planSchema.errors)).toBe(true);
    expect(plan.safety.identityChanges[0].changes).toContainEqual({
      change: 'added',
      reach: { identity: 'user:alice', connection: 'github', via: [], grant: 'github:user:alice', tools: ['github.delete_repo', 'github.search'] },
    });
    expect(json.stdout).not.toContain(TOKEN);

    const markdown = await runCli(['plan', dir, '--markdown']);
    expect(markdown.stdout).toContain('#### Identity changes');
    expect(markdown.stdout).toContain('- ➕ ⚠️ user:alice now reaches github (2 tools) through grant github:user:alice');
    expect(markdown.stdout).not.toContain(TOKEN);
  });

  it('a grant added while the agent does not require an identity: the anonymous caller stays, the rule is an error in production', async () => {
    await setIdentity(dir, false);
    const result = await runCli(['plan', dir]);
    // An error finding: apply would refuse this plan, so plan exits 1 (the suppressed one below passes).
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toContain('  support: + user:alice now reaches github (2 tools) through grant github:user:alice');
    expect(result.stdout).not.toContain('support: - anonymous');
    // One finding, on the agent (where identity.required is set), not one per grant.
    expect(result.stdout.match(/\[identity-not-required-with-grants\]/g)).toHaveLength(1);
    expect(result.stdout).toMatch(
      /agents\.yaml:\d+:\d+: error \[identity-not-required-with-grants\] agent\/support: identity\.required is not true, but connection github holds per-identity grants/,
    );
  });

  it("the finding is suppressed in the agent's document", async () => {
    const text = await readFile(join(dir, 'agents.yaml'), 'utf8');
    await writeFile(
      join(dir, 'agents.yaml'),
      `${text.trimEnd()}\nsuppress:\n  - rule: identity-not-required-with-grants\n    reason: an internal bot; every caller is a service\n`,
    );
    const result = await runCli(['plan', dir]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /suppressed \[identity-not-required-with-grants\] agent\/support: .*\(suppressed: an internal bot; every caller is a service\)/,
    );
    expect(result.stdout).not.toMatch(/error \[identity-not-required-with-grants\]/);
  });
});
