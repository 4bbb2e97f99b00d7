// `agentform test` end to end, and the capability test section of `plan`: passing and failing
// suites, located failures with their chain of definitions, located errors in bad test files,
// exit codes, --json, and JUnit XML checked by a strict parser.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO, runCli } from '../helpers/cli.js';
import { parseXml, type XmlElement } from '../helpers/xml.js';

const FIXTURE = join(REPO, 'test', 'fixtures', 'capability-tests', 'project');

const FAILING = `tests:
  - name: support cannot look customers up
    agent: support
    cannot: crm.find_customer
  - agent: support
    can: crm.delete_customer
    withDecision: false
    environments: [prod]
`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentform-capability-tests-'));
  await cp(FIXTURE, dir, { recursive: true });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const test = (...args: string[]) => runCli(['test', ...args], { cwd: dir });

describe('agentform test', () => {
  it('passes the fixture suite in every environment, exit 0', async () => {
    const result = await test('--all-envs');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('pass  [prod] support never deletes a customer without a human decision  tests/support.test.yaml:2:5');
    expect(result.stdout).toContain('Capability tests: 8 passed, 0 failed, 0 errors, 2 skipped (1 test file, 2 environments).');
  });

  it('strictTools: tests the policy derived from the lock, as plan and apply send it', async () => {
    // No default written: strict mode derives `ask` for the locked tools, so none runs without a decision.
    await writeFile(
      join(dir, 'tests', 'strict.test.yaml'),
      'tests:\n  - agent: researcher\n    can: docs.search\n    withDecision: false\n    environments: [dev]\n',
    );
    const agents = join(dir, 'agents', 'support.yaml');
    const text = await readFile(agents, 'utf8');
    await writeFile(agents, text.slice(0, text.lastIndexOf('  policies:')));
    const root = join(dir, 'agentform.yaml');
    const loose = await test('-e', 'dev');
    expect(loose.code, loose.stdout).toBe(0);
    await writeFile(root, (await readFile(root, 'utf8')).replace('    url: local\n', '    url: local\n    strictTools: true\n'));
    const strict = await test('-e', 'dev');
    expect(strict.code, strict.stdout + strict.stderr).toBe(1);
    expect(strict.stdout).toContain('researcher: policies.toolCalls.byTool.search: ask');
  });

  it('checks the default environment without -e or --all-envs', async () => {
    const result = await test('--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).environments).toEqual(['dev']);
  });

  it('fails with the assertion located and the chain of definitions, exit 1', async () => {
    await writeFile(join(dir, 'tests', 'failing.test.yaml'), FAILING);
    const result = await test('-e', 'dev');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('FAIL  [dev] support cannot look customers up');
    expect(result.stdout).toContain('      tests/failing.test.yaml:2:5: support can call crm.find_customer without a decision');
    expect(result.stdout).toContain(
      [
        '      granted by:',
        '        agent support  (agents/support.yaml:2:7)',
        '        support: tools[1]: connection crm  (agents/support.yaml:11:7)',
        '        connection crm  (connections.yaml:2:7)',
        '        agentform.lock.yaml: connection crm in dev has find_customer (read-only)  (agentform.lock.yaml:13:11)',
        '        support: policies.toolCalls.default: allow  (agents/support.yaml:15:16)',
      ].join('\n'),
    );
    const prod = await test('-e', 'prod');
    expect(prod.code).toBe(1);
    expect(prod.stdout).toContain('tests/failing.test.yaml:5:5: support cannot call crm.delete_customer without a decision');
    // The overlay of prod is what denies it.
    expect(prod.stdout).toMatch(/support: policies\.toolCalls\.byTool\.delete_customer: deny {2}\(agents\/support\.yaml:29:28\)/);
  });

  it('as which identity: a grant subject and an anonymous caller pass; a failure shows the grant, located', async () => {
    const connections = join(dir, 'connections.yaml');
    const withGrant = (await readFile(connections, 'utf8')).replace(
      '    type: none\n',
      '    type: none\n  grants:\n    - identity: {scope: user, id: alice}\n      accessToken: ${env:CAPABILITY_GRANT_TOKEN:-grant-token-never-shown}\n',
    );
    await writeFile(connections, withGrant);
    const identities = `tests:
  - agent: support
    can: crm.find_customer
    as: user:alice
  - agent: support
    can: crm.find_customer
    as: anonymous
`;
    await writeFile(join(dir, 'tests', 'identity.test.yaml'), identities);
    const passing = await test('-e', 'dev', '--json');
    expect(passing.code, passing.stderr).toBe(0);
    const results = JSON.parse(passing.stdout).results.filter((result: { location: string }) => result.location.startsWith('tests/identity'));
    expect(results.map((result: { as: string; status: string }) => `${result.as} ${result.status}`)).toEqual(['user:alice pass', 'anonymous pass']);
    expect(passing.stdout).not.toContain('grant-token-never-shown');

    // bob has no grant, but support does not require an identity: he may act with the connection's credential.
    await writeFile(
      join(dir, 'tests', 'identity.test.yaml'),
      `${identities}  - name: alice cannot look customers up\n    agent: support\n    cannot: crm.find_customer\n    as: user:alice\n  - agent: support\n    cannot: crm.find_customer\n    as: user:bob\n`,
    );
    const failing = await test('-e', 'dev');
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain('FAIL  [dev] alice cannot look customers up');
    expect(failing.stdout).toContain('tests/identity.test.yaml:8:5: support can call crm.find_customer without a decision as user:alice');
    expect(failing.stdout).toContain('tests/identity.test.yaml:12:5: support can call crm.find_customer without a decision as user:bob');
    expect(failing.stdout).toContain('connection crm has no grant for user:bob in dev: its own credential is assumed');
    expect(failing.stdout).toMatch(/ {8}connection crm {2}\(connections\.yaml:2:7\)\n {8}grant crm:user:alice {2}\(connections\.yaml:9:7\)\n/);
    expect(failing.stdout).not.toContain('grant-token-never-shown');
  });

  it('an undecidable assertion (no lock entry) is an error, exit 1', async () => {
    await writeFile(join(dir, 'tests', 'docs.test.yaml'), 'tests:\n  - agent: researcher\n    can: docs.search\n');
    const result = await test('-e', 'prod');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('ERROR  [prod] researcher can call docs.search');
    expect(result.stdout).toContain('agentform.lock.yaml has no entry for connection docs in prod');
  });

  it.each([
    ['an unknown key', 'tests:\n  - agent: support\n    cann0t: crm.x\n', /tests\/bad\.test\.yaml:3:5: .*cann0t/],
    ['a tool without its connection', 'tests:\n  - agent: support\n    can: delete_customer\n', /tests\/bad\.test\.yaml:3:10: .*CONNECTION\.TOOL/],
    ['withDecision not a boolean', 'tests:\n  - agent: support\n    can: crm.x\n    withDecision: "no"\n', /tests\/bad\.test\.yaml:4:19: /],
    ['neither can nor cannot', 'tests:\n  - agent: support\n    withDecision: true\n', /tests\/bad\.test\.yaml:2:5: write one of can or cannot/],
    [
      'both can and cannot',
      'tests:\n  - agent: support\n    can: crm.x\n    cannot: crm.x\n',
      /tests\/bad\.test\.yaml:2:5: write one of can or cannot, not both/,
    ],
    [
      'an unknown environment',
      'tests:\n  - agent: support\n    can: crm.x\n    environments: [prod, stagin]\n',
      /tests\/bad\.test\.yaml:4:26: unknown environment "stagin"/,
    ],
    ['not YAML', 'tests: [\n', /tests\/bad\.test\.yaml:\d+:\d+: /],
  ])('a bad test file (%s): a located error, exit 1, no stack trace', async (_, text, message) => {
    await writeFile(join(dir, 'tests', 'bad.test.yaml'), text);
    const result = await test('--all-envs');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('validate reports a bad test file too, located; a good one passes', async () => {
    expect((await runCli(['validate'], { cwd: dir })).code).toBe(0);
    await writeFile(join(dir, 'tests', 'bad.test.yaml'), 'tests:\n  - agent: support\n    can: crm.x\n    environments: [stagin]\n');
    const result = await runCli(['validate'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toMatch(/tests\/bad\.test\.yaml:4:20: .*unknown environment "stagin"/);
  });

  it('--json: a result per assertion and environment, with its chain', async () => {
    await writeFile(join(dir, 'tests', 'failing.test.yaml'), FAILING);
    const result = await test('-e', 'dev', '--json');
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.files).toEqual(['tests/failing.test.yaml', 'tests/support.test.yaml']);
    expect(report.summary).toEqual({ passed: 5, failed: 1, errors: 0, skipped: 1 });
    const failed = report.results.find((entry: { status: string }) => entry.status === 'fail');
    expect(failed).toMatchObject({
      environment: 'dev',
      name: 'support cannot look customers up',
      location: 'tests/failing.test.yaml:2:5',
      agent: 'support',
      cannot: 'crm.find_customer',
      agents: ['support'],
    });
    expect(failed.chain[0]).toEqual({ what: 'agent support', location: 'agents/support.yaml:2:7' });
  });

  it('--junit: well-formed XML, a testsuite per environment, a testcase per assertion, failures located', async () => {
    await writeFile(join(dir, 'tests', 'failing.test.yaml'), FAILING.replace('support cannot look customers up', 'support <cannot> look "customers" & up'));
    const result = await test('--all-envs', '--junit', 'out/results.xml');
    expect(result.code).toBe(1);
    const root = parseXml(await readFile(join(dir, 'out', 'results.xml'), 'utf8'));
    expect(root.name).toBe('testsuites');
    expect(root.attributes).toMatchObject({ tests: '11', failures: '2', errors: '0' });
    expect(root.children.map((suite) => [suite.name, suite.attributes.name, suite.attributes.tests, suite.attributes.failures])).toEqual([
      ['testsuite', 'dev', '6', '1'],
      ['testsuite', 'prod', '5', '1'],
    ]);
    const cases = (suite: XmlElement) => suite.children.filter((child) => child.name === 'testcase');
    const dev = root.children[0] as XmlElement;
    expect(cases(dev)).toHaveLength(6);
    const failing = cases(dev).find((testcase) => testcase.children.length > 0) as XmlElement;
    expect(failing.attributes.name).toBe('support <cannot> look "customers" & up');
    expect(failing.attributes.file).toBe('tests/failing.test.yaml');
    expect(failing.children[0]?.name).toBe('failure');
    expect(failing.children[0]?.attributes.message).toBe('tests/failing.test.yaml:2:5: support can call crm.find_customer without a decision');
    expect(failing.children[0]?.text).toContain('agent support  (agents/support.yaml:2:7)');
  });

  it('-e and --all-envs together: refused, exit 1', async () => {
    const result = await test('-e', 'dev', '--all-envs');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--all-envs and -e/--env cannot be combined');
  });

  it('no test files: nothing to check, exit 0', async () => {
    await rm(join(dir, 'tests'), { recursive: true });
    const result = await test('--all-envs');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('No capability test files');
  });
});

describe('plan shows the capability tests', () => {
  it('in text, JSON (valid against plan.schema.json) and Markdown; the plan still succeeds', async () => {
    await writeFile(join(dir, 'tests', 'failing.test.yaml'), FAILING);
    const text = await runCli(['plan', '-e', 'dev'], { cwd: dir });
    expect(text.stderr).not.toContain('Error');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Capability tests: 5 passed, 1 failed, 0 errors, 1 skipped (agentform test shows why)');
    expect(text.stdout).toContain(
      '  FAIL tests/failing.test.yaml:2:5 [dev] support cannot look customers up: support can call crm.find_customer without a decision',
    );

    const json = await runCli(['plan', '-e', 'dev', '--json'], { cwd: dir });
    const plan = JSON.parse(json.stdout);
    expect(plan.capabilityTests.summary).toEqual({ passed: 5, failed: 1, errors: 0, skipped: 1 });
    const schema = JSON.parse(await readFile(join(REPO, 'schemas', 'plan.schema.json'), 'utf8'));
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(plan), JSON.stringify(validate.errors)).toBe(true);

    const markdown = await runCli(['plan', '-e', 'dev', '--markdown'], { cwd: dir });
    expect(markdown.stdout).toContain('### Capability tests\n\n5 passed, 1 failed, 0 errors, 1 skipped.');
    expect(markdown.stdout).toContain('FAIL tests/failing.test.yaml:2:5 [dev] support cannot look customers up');
  });

  it('leaves the plan as it was when the project has no test files', async () => {
    await rm(join(dir, 'tests'), { recursive: true });
    const json = await runCli(['plan', '-e', 'dev', '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout).capabilityTests).toBeUndefined();
  });
});
