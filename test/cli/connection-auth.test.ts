// A connection's auth fields other than `type` are write-only, whatever their names: the real CLI
// against the real local control plane, through a recording proxy that shows what was sent. The
// local control plane shows nothing of an auth but its type (a server that echoes a field, as a
// real one might, is covered by test/state/normalize.test.ts and test/api/debug-redaction.test.ts):
// plans must settle, and no output may show a value.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';

const CLIENT_ID = 'SENTINEL-client-id-5d1e';
const CLIENT_SECRET = 'SENTINEL-client-secret-88ab';

const ROOT = `version: 1
environments:
  dev:
    url: http://127.0.0.1:1
    token: \${env:AUTH_TEST_TOKEN}
`;

function connectionYaml(options: { rotatedAt?: string; channel?: string } = {}): string {
  return `kind: Connection
name: crm
spec:
${options.channel ? `  channel: ${options.channel}\n` : ''}  auth:
    type: oauth-client
    clientId: \${env:CRM_CLIENT_ID}
    clientSecret:
      value: \${file:crm-secret.txt}
      rotatedAt: ${options.rotatedAt ?? '2020-01-01T00:00:00Z'}
`;
}

describe('connection auth fields are write-only', () => {
  let plane: LocalControlPlane;
  let proxy: RecordingServer;
  let dataDir: string;
  let project: string;
  let env: NodeJS.ProcessEnv;

  /** What the connection writes sent as `auth`, in order. */
  const sentAuth = () =>
    proxy.requests.filter((request) => /\/v1\/connections\/(create|update)$/.test(request.path)).map((request) => (request.body as { auth?: unknown }).auth);

  async function run(args: string[]): Promise<CliResult> {
    const result = await runCli(args, { cwd: project, env });
    for (const text of [result.stdout, result.stderr]) {
      expect(text).not.toContain(CLIENT_ID);
      expect(text).not.toContain(CLIENT_SECRET);
    }
    return result;
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agentform-auth-data-'));
    project = mkdtempSync(join(tmpdir(), 'agentform-auth-project-'));
    plane = await startLocalControlPlane({ dataDir, environments: ['dev'] });
    proxy = await startRecordingServer(async (request) => {
      const response = await fetch(`${plane.url}${request.path}`, {
        method: 'POST',
        headers: { authorization: String(request.headers.authorization), 'content-type': 'application/json' },
        ...(request.text ? { body: request.text } : {}),
      });
      return { status: response.status, text: await response.text(), headers: { 'content-type': 'application/json' } };
    });
    env = { AGENTFORM_URL_DEV: proxy.url, AUTH_TEST_TOKEN: plane.tokens.dev!, CRM_CLIENT_ID: CLIENT_ID };
    writeFileSync(join(project, 'agentform.yaml'), ROOT);
    writeFileSync(join(project, 'connections.yaml'), connectionYaml());
    writeFileSync(join(project, 'crm-secret.txt'), `${CLIENT_SECRET}\n`);
  });

  afterAll(async () => {
    await proxy?.close();
    await plane?.close();
    for (const dir of [dataDir, project]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('plan shows them as (write-only) in text, --json, --markdown and a saved plan', async () => {
    const text = await run(['plan']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/\+ auth\.type: "?oauth-client"?/);
    expect(text.stdout).toContain('+ auth.clientId: (write-only)');
    expect(text.stdout).toContain('+ auth.clientSecret: (write-only)');

    const json = await run(['plan', '--json']);
    const change = (JSON.parse(json.stdout) as { changes: Array<{ address: string; fields: unknown[] }> }).changes.find((c) => c.address === 'connection/crm');
    expect(change?.fields).toEqual(
      expect.arrayContaining([
        { path: 'auth.clientId', writeOnly: true },
        { path: 'auth.clientSecret', writeOnly: true },
        { path: 'auth.type', after: 'oauth-client' },
      ]),
    );

    const markdown = await run(['plan', '--markdown']);
    expect(markdown.stdout).toContain('auth.clientSecret');
    await run(['plan', '--out', 'plan.json']);
    const saved = readFileSync(join(project, 'plan.json'), 'utf8');
    expect(saved).toContain('auth.clientSecret');
    expect(saved).not.toContain(CLIENT_ID);
    expect(saved).not.toContain(CLIENT_SECRET);
  });

  it('apply sends them on create; then the plan settles', async () => {
    const apply = await run(['apply', 'plan.json', '--auto-approve', '--debug']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(sentAuth()).toEqual([{ type: 'oauth-client', clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }]);
    // The trace masks them in the request body.
    expect(apply.stderr).toContain('"clientId":"[redacted]"');

    const plan = await run(['plan', '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes.');
  });

  /** Applies, checks that the auth values went out once more (write number `writes`), and that the plan settles. */
  async function expectSentAgainBy(apply: string[], writes: number): Promise<void> {
    const applied = await run(apply);
    expect(applied.code, applied.stderr).toBe(0);
    expect(sentAuth()).toHaveLength(writes);
    expect(sentAuth()[writes - 1]).toEqual({ type: 'oauth-client', clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    expect((await run(['plan', '--detailed-exitcode'])).code).toBe(0);
  }

  it('every update of the connection sends them again', async () => {
    writeFileSync(join(project, 'connections.yaml'), connectionYaml({ channel: 'support' }));
    expect((await run(['plan'])).stdout).toContain('~ auth.clientSecret: (write-only, sent again)');
    await expectSentAgainBy(['apply', '--auto-approve'], 2);
  });

  it('a rotation marker later than the last write sends them again, once', async () => {
    writeFileSync(join(project, 'connections.yaml'), connectionYaml({ channel: 'support', rotatedAt: new Date().toISOString() }));
    expect((await run(['plan'])).stdout).toMatch(/rotation marker \S+ of auth\.clientSecret is newer than the last write/);
    await expectSentAgainBy(['apply', '--auto-approve'], 3);
  });

  it('a literal in an auth field is a validate error at its place, and plan refuses it too', async () => {
    const file = join(project, 'connections.yaml');
    const good = readFileSync(file, 'utf8');
    writeFileSync(file, good.replace('clientId: ${env:CRM_CLIENT_ID}', 'clientId: literal-client-id\n    port: 8443'));
    try {
      const validate = await run(['validate']);
      expect(validate.code).toBe(1);
      expect(validate.stdout + validate.stderr).toMatch(
        /connections\.yaml:7:15: .*spec\.auth\.clientId: a write-only value must be exactly \$\{env:NAME\} or \$\{file:PATH\}/,
      );
      expect(validate.stdout + validate.stderr).toMatch(/connections\.yaml:8:11: .*spec\.auth\.port: a write-only value must be exactly/);
      expect(validate.stdout + validate.stderr).not.toContain('literal-client-id');
      const plan = await run(['plan']);
      expect(plan.code).toBe(1);
      expect(plan.stderr).toMatch(/connections\.yaml:7:15: spec\.auth\.clientId: a write-only value/);
    } finally {
      writeFileSync(file, good);
    }
  });
});
