// The plan a reviewer reads cannot lie (issue 45, item 2): a name holding every C0 and C1 control
// and ANSI cursor sequences reaches no output unescaped — plan text and Markdown, whoami, org and
// an error — and the local control plane refuses such names with a 400 naming the field.
// Runs under both server profiles (vitest.config.ts).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { reportError } from '../../src/cli/report-error.js';
import type { Plan } from '../../src/model/resources.js';
import { renderIdentity } from '../../src/render/identity.js';
import { renderOrganization } from '../../src/render/ops/account.js';
import { renderPlanAs } from '../../src/render/plan-formats.js';
import { runCli } from '../helpers/cli.js';
import { apiError, ok, startRecordingServer, UNIMPLEMENTED, type RecordingServer } from '../helpers/recording-server.js';
import { samplePlan } from '../render/fixtures.js';
import { call, startServer } from '../server/helpers.js';

const codes = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => String.fromCharCode(from + index)).join('');
/** Every C0 control, DEL, every C1 control, cursor moves, a line erase, an OSC title, 8-bit CSI, bidi and line separators. */
const HOSTILE = `${codes(0x00, 0x1f)}\u007f${codes(0x80, 0x9f)}\u001b[1A\u001b[2K\u001b]0;pwned\u0007\u009b2J\u202e\u2028evil`;

/** What a terminal or a Markdown page would obey rather than show; '\n' is the renderers' own. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function expectShownNotObeyed(output: string): void {
  const found = RAW_CONTROL.exec(output);
  expect(
    found,
    found
      ? `raw U+${found[0].charCodeAt(0).toString(16)} at ${found.index}: ${JSON.stringify(output.slice(Math.max(0, found.index - 40), found.index + 10))}`
      : '',
  ).toBeNull();
  expect(output).toContain('\\u001b[1A\\u001b[2K');
}

/**
 * samplePlan with `tail` appended to every name, path, reason, string value and warning and to the
 * environment; values get it without '\n' (a newline rightly makes a value multi-line, a prompt).
 */
function planWith(tail: string): Plan {
  const plan = samplePlan();
  return {
    ...plan,
    environment: `${plan.environment}${tail}`,
    warnings: [...plan.warnings, `warning ${tail}`],
    changes: plan.changes.map((change) => ({
      ...change,
      address: `${change.address}${tail}` as typeof change.address,
      reason: `reason ${tail}`,
      fields: change.fields.map((field) => ({
        ...field,
        path: `${field.path}${tail}`,
        ...(typeof field.after === 'string' ? { after: `${field.after}${tail.replace('\n', '')}` } : {}),
      })),
      ...(change.kept ? { kept: change.kept.map((kept) => ({ ...kept, path: `${kept.path}${tail}`, value: `${String(kept.value)}${tail}` })) } : {}),
    })),
  };
}

describe('renderers show control characters instead of obeying them', () => {
  it.each(['text', 'markdown'] as const)('plan as %s: nothing raw, no forged line', (format) => {
    const context = { target: `http://127.0.0.1/${HOSTILE}`, color: false };
    const hostile = renderPlanAs(format, planWith(HOSTILE), context);
    expectShownNotObeyed(hostile);
    // A newline, CR or separator in a name would add lines: the count matches a harmless name's.
    expect(hostile.split('\n')).toHaveLength(renderPlanAs(format, planWith('x'), { ...context, target: 'http://127.0.0.1/x' }).split('\n').length);
  });

  it('plan text in colour keeps only its own colour codes', () => {
    const coloured = renderPlanAs('text', planWith(HOSTILE), { target: 'local', color: true });
    // The palette's SGR codes are the renderer's; every other escape would be the name's.
    expectShownNotObeyed(coloured.replace(/\u001b\[[0-9;]*m/g, ''));
  });

  it('whoami and org', () => {
    const whoami = renderIdentity({
      organization: { id: `org_${HOSTILE}`, slug: `acme${HOSTILE}`, name: `Acme${HOSTILE}` },
      environment: { slug: `dev${HOSTILE}`, id: `env${HOSTILE}` },
      credential: 'api-key',
      key: { id: `key${HOSTILE}`, name: `ci${HOSTILE}`, expiresAt: `2027${HOSTILE}` },
      scopes: ['read', `control${HOSTILE}`],
      notes: [`note ${HOSTILE}`],
    });
    expectShownNotObeyed(whoami);
    expect(whoami.split('\n')).toHaveLength(6 + 1);
    const org = renderOrganization({ id: `org${HOSTILE}`, slug: `acme${HOSTILE}`, name: `Acme${HOSTILE}`, idpOrganizationId: `idp${HOSTILE}` });
    expectShownNotObeyed(org);
    expect(org.split('\n')).toHaveLength(4);
  });

  describe('an error', () => {
    let written: string;
    beforeEach(() => {
      written = '';
      vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
        written += String(chunk);
        return true;
      });
    });
    afterEach(() => vi.restoreAllMocks());

    it('a server error message, text: one line, nothing raw', () => {
      expect(reportError(new ApiError(`secrets.create${HOSTILE}`, 400, `invalid_argument${HOSTILE}`, `name ${HOSTILE}`), false)).toBe(1);
      expectShownNotObeyed(written);
      expect(written.split('\n')).toHaveLength(2);
    });

    it('--json: valid JSON with the message whole, nothing raw', () => {
      reportError(new ApiError('secrets.create', 400, 'invalid_argument', `name ${HOSTILE}`), false, true);
      expect(RAW_CONTROL.exec(written)).toBeNull();
      expect((JSON.parse(written) as { error: { message: string } }).error.message).toBe(`name ${HOSTILE}`);
    });
  });
});

// A hostile or compromised control plane: the CLI must not pass on what it says.
describe('the CLI against a server answering with control characters', () => {
  const TOKEN = 'svc_dev_controlChars1';
  let server: RecordingServer;
  beforeAll(async () => {
    server = await startRecordingServer(UNIMPLEMENTED);
    server.on('/v1/organizations/get', ok({ id: 'org_1', slug: `acme${HOSTILE}`, name: `Acme${HOSTILE}` }));
    server.on('/v1/environments/get', ok({ id: 'env_1', slug: 'dev', name: `Dev${HOSTILE}`, kind: 'development' }));
    server.on('/v1/apiKeys/list', ok([{ id: 'key_1', name: `ci${HOSTILE}`, prefix: TOKEN.slice(0, 12), scopes: ['read', 'control'] }]));
    server.on('/v1/secrets/list', apiError(500, 'internal', `boom ${HOSTILE}`));
  });
  afterAll(async () => server?.close());
  const env = () => ({ AGENTFORM_URL: server.url, AGENTFORM_TOKEN: TOKEN, AGENTFORM_ENVIRONMENT: 'dev', AGENTFORM_MAX_RETRIES: '0' });

  it.each([['whoami'], ['org']])('%s prints the names escaped', async (command) => {
    const result = await runCli([command], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    expectShownNotObeyed(result.stdout);
    expect(RAW_CONTROL.exec(result.stderr)).toBeNull();
  });

  it("a server's error message is printed escaped, on one line", async () => {
    const result = await runCli(['secrets', 'delete', 'old-token'], { env: env() });
    expect(result.code).toBe(1);
    expectShownNotObeyed(result.stderr);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('the local control plane refuses control characters in names', () => {
  let plane: Awaited<ReturnType<typeof startServer>>;
  let token: string;
  beforeAll(async () => {
    plane = await startServer({ environments: ['dev'] });
    token = plane.tokens.dev!;
  });
  afterAll(async () => plane?.cleanup());

  const CASES: Array<[rpc: string, field: string, body: (name: string) => unknown]> = [
    ['secrets.create', 'name', (name) => ({ name, value: 'v' })],
    ['providers.create', 'name', (name) => ({ name, type: 'anthropic' })],
    ['connections.create', 'name', (name) => ({ name, url: 'https://mcp.example.com', auth: { type: 'none' } })],
    ['apiKeys.create', 'key.name', (name) => ({ key: { name, scopes: ['read'] } })],
    ['environments.create', 'name', (name) => ({ slug: 'fresh', name, kind: 'development' })],
    ['organizations.update', 'name', (name) => ({ name })],
  ];
  const CONTROLS = ['\u001b[1A\u001b[2K', '\r', '\n', '\t', '\u0000', '\u007f', '\u009b', '\u202e'];

  it.each(CASES.flatMap(([rpc, field, body]) => CONTROLS.map((control) => [rpc, field, JSON.stringify(control), body, control] as const)))(
    '%s: 400 naming %s (control %s)',
    async (rpc, field, _label, body, control) => {
      const answer = await call(plane.url, rpc, body(`name${control}`), token);
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      const error = (answer.body as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('invalid_argument');
      expect(error.message).toMatch(new RegExp(`^${field.replace('.', '\\.')}: must not hold control characters`));
    },
  );

  it('a plain name with spaces and non-ASCII letters is still accepted', async () => {
    const answer = await call(plane.url, 'secrets.create', { name: 'Zürich token 2', value: 'v' }, token);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  });
});
