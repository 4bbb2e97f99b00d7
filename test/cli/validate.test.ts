// End to end: `node dist/cli/agentform.js validate|schema` — exit codes, output, GitHub annotations.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import Ajv2020Module from 'ajv/dist/2020.js';
import { CLI, REPO, cliEnv } from '../helpers/cli.js';

// ajv ships CommonJS: under NodeNext the class is the module's default export.
type AjvClass = typeof Ajv2020Module.default;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: AjvClass }).default ?? Ajv2020Module) as AjvClass;

const INVALID = join('test', 'fixtures', 'invalid');

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: REPO,
    encoding: 'utf8',
    // cliEnv: the run's own parse cache, never one in the work tree's examples or fixtures.
    env: cliEnv(env),
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => {
  // dist/ is built once by test/global-setup.ts.
  if (!existsSync(CLI)) throw new Error(`${CLI} was not built`);
}, 120_000);

describe('agentform validate', () => {
  it('exits 0 on a valid project', () => {
    const result = run(['validate', 'examples/quickstart']);
    expect(result).toMatchObject({ status: 0, stderr: '' });
    expect(result.stdout).toBe('The configuration is valid.\n');
  });

  it('prints file:line:col problems relative to the working directory and exits 1', () => {
    const result = run(['validate', join(INVALID, 'unknown-key-spec')], { PRESENT_VAR: 'x' });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe(
      'test/fixtures/invalid/unknown-key-spec/agents.yaml:8:3: spec.sytem: unknown key "sytem" in spec; did you mean "system"?\n1 error, 0 warnings.\n',
    );
  });

  it('adds GitHub annotations under GITHUB_ACTIONS=true', () => {
    const result = run(['validate', join(INVALID, 'subagent-cycle')], { GITHUB_ACTIONS: 'true' });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain(
      '::error file=test/fixtures/invalid/subagent-cycle/agents.yaml,line=19,col=37::spec.subagents[0].agent: subagent cycle: alpha → beta → alpha\n',
    );
  });

  it('prints problems as JSON with --json', () => {
    const result = run(['validate', join(INVALID, 'missing-env-var'), '--json']);
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      valid: false,
      errors: 1,
      warnings: 0,
      problems: [
        {
          severity: 'error',
          message: 'environment variable NOT_SET_ANYWHERE is not set (or use ${env:NOT_SET_ANYWHERE:-default})',
          file: 'test/fixtures/invalid/missing-env-var/providers.yaml',
          line: 5,
          col: 12,
          jsonPath: 'spec.baseUrl',
        },
      ],
    });
  });

  it('needs no write-only value at all: a pull-request job without secrets validates examples/gitops', () => {
    // OPENAI_API_KEY, ANTHROPIC_API_KEY, CRM_SUPPORT_TOKEN, NPM_TOKEN: none is set.
    expect(run(['validate', 'examples/gitops'])).toMatchObject({ status: 0, stdout: 'The configuration is valid.\n' });
  });

  it('checks only the environment given with -e', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentform-only-'));
    writeFileSync(join(dir, 'agentform.yaml'), 'version: 1\nenvironments:\n  dev:\n    url: local\n  prod:\n    url: local\n');
    writeFileSync(
      join(dir, 'providers.yaml'),
      'kind: Provider\nname: openai\nenvironments: [prod]\nspec:\n  type: openai\n  baseUrl: ${env:PROD_OPENAI_URL}\n',
    );
    expect(run(['validate', dir, '-e', 'dev']).status).toBe(0);
    const all = run(['validate', dir]);
    expect(all.status).toBe(1);
    expect(all.stdout).toContain('PROD_OPENAI_URL is not set');
    const unknown = run(['validate', 'examples/gitops', '-e', 'prod']);
    expect(unknown.status).toBe(1);
    expect(unknown.stdout).toContain('unknown environment "prod"');
  });

  it('never prints a literal secret or a stack trace', () => {
    for (const name of ['literal-svc-key', 'literal-token-in-root', 'literal-provider-secret', 'binary-garbage', 'yaml-syntax-error', 'empty-file']) {
      const result = run(['validate', join(INVALID, name)]);
      expect(result.status, name).toBe(1);
      const output = result.stdout + result.stderr;
      expect(output).not.toMatch(/svc_dev_AbCdEf123456|sk-live-1234567890|\n\s+at /);
    }
  });

  it('locates problems in a large project (121 files, 1,200 agents), in a file near its end', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentform-large-'));
    writeFileSync(join(dir, 'agentform.yaml'), 'version: 1\nenvironments:\n  dev:\n    url: local\n');
    const agent = (name: string) => `kind: Agent\nname: ${name}\nspec:\n  model: {provider: openai, model: gpt-4o}\n  system: "${'x'.repeat(200)}"\n`;
    writeFileSync(join(dir, 'a-providers.yaml'), 'kind: Provider\nname: openai\nspec:\n  type: openai\n');
    for (let file = 0; file < 120; file++) {
      const documents = Array.from({ length: 10 }, (_, index) => agent(`agent-${file}-${index}`));
      if (file === 110) documents[3] = documents[3]!.replace('model: gpt-4o', 'modle: gpt-4o');
      writeFileSync(join(dir, `agents-${String(file).padStart(3, '0')}.yaml`), documents.join('---\n'));
    }
    try {
      const result = run(['validate', dir]);
      expect(result.status).toBe(1);
      const lines = result.stdout.split('\n').filter((line) => line.includes('agents-110.yaml'));
      expect(lines.map((line) => line.slice(line.indexOf('agents-110.yaml')))).toEqual([
        'agents-110.yaml:22:3: spec.model: missing required key "model" in model',
        'agents-110.yaml:22:29: spec.model.modle: unknown key "modle" in model; did you mean "model"?',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports a missing project directory as a problem', () => {
    const result = run(['validate', 'does/not/exist']);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('does not exist');
  });
});

describe('agentform schema', () => {
  it.each(['agentform', 'agent', 'provider', 'connection', 'secret', 'apikey', 'agenttemplate'])(
    'prints the %s schema, a valid draft 2020-12 schema',
    (kind) => {
      const result = run(['schema', kind]);
      expect(result.status).toBe(0);
      const schema = JSON.parse(result.stdout) as { $id: string };
      expect(schema.$id).toMatch(/^urn:agentform:schema:.+\.schema\.json$/);
      const ajv = new Ajv2020({ strict: false });
      expect(() => ajv.compile(schema)).not.toThrow();
    },
  );

  it('refuses an unknown kind', () => {
    const result = run(['schema', 'agnet']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('unknown schema "agnet"');
  });
});
