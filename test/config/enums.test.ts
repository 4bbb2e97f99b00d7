// Closed and named values: a value one or two edits away from a named value of an enumeration is
// a typo (an error with "did you mean", in validate and in plan); another value of an open
// enumeration may be one the API does not list (a warning); `scopes` is closed (read, control).
import { describe, expect, it } from 'vitest';
import { loadProject, validateProject } from '../../src/config/index.js';
import { abbreviationOf, likelyTypoOf } from '../../src/config/suggest.js';
import { ProblemsError } from '../../src/errors.js';
import { runCli } from '../helpers/cli.js';
import { writeProject } from './helpers.js';

const AGENT = `kind: Agent
name: support
spec:
  system: You help.
`;
const MODEL = '  model: {provider: openai, model: gpt-4o}\n';
const PROVIDER = 'kind: Provider\nname: openai\nspec:\n  type: openai\n';
/** The connection an agent's `tools: [{type: connection, name: github}]` names. */
const GITHUB = 'kind: Connection\nname: github\nspec:\n  auth: {type: svc-signed}\n';

/** A project whose agent (or connection, or key) has `yaml` appended to its spec. */
function projectWith(file: 'agent' | 'connection' | 'apiKey', yaml: string): Record<string, string> {
  if (file === 'agent')
    return { 'agents.yaml': AGENT + (yaml.includes('  model:') ? '' : MODEL) + yaml, 'providers.yaml': PROVIDER, 'connections.yaml': GITHUB };
  if (file === 'connection') return { 'connections.yaml': `kind: Connection\nname: crm\nspec:\n${yaml}` };
  return { 'keys.yaml': `kind: ApiKey\nname: ci\nspec:\n${yaml}` };
}

/** Line and column (1-based) of the first occurrence of `needle` in the file. */
function where(text: string, needle: string): { line: number; col: number } {
  const lines = text.split('\n');
  const line = lines.findIndex((candidate) => candidate.includes(needle));
  if (line === -1) throw new Error(`${needle} not in the test's YAML`);
  return { line: line + 1, col: (lines[line] as string).indexOf(needle) + 1 };
}

type Expected = { severity: 'error' | 'warning'; path: string; message: string | RegExp; at: string } | 'clean';

const CASES: Array<[string, 'agent' | 'connection' | 'apiKey', string, Expected]> = [
  // Close to a named value: an error with the value it probably meant.
  [
    'scopes: reed',
    'apiKey',
    '  scopes: [control, reed]\n',
    { severity: 'error', path: 'spec.scopes[1]', message: 'must be one of "read", "control"; did you mean "read"?', at: 'reed' },
  ],
  [
    'toolCalls.default: alow',
    'agent',
    '  policies:\n    toolCalls: {default: alow}\n',
    { severity: 'error', path: 'spec.policies.toolCalls.default', message: '"alow" is not a known value; did you mean "allow"?', at: 'alow' },
  ],
  [
    'toolCalls.byTool: asks',
    'agent',
    '  policies:\n    toolCalls:\n      byTool: {x: asks}\n',
    { severity: 'error', path: 'spec.policies.toolCalls.byTool.x', message: '"asks" is not a known value; did you mean "ask"?', at: 'asks' },
  ],
  [
    'toolCalls.onError: dney',
    'agent',
    '  policies:\n    toolCalls: {onError: dney}\n',
    { severity: 'error', path: 'spec.policies.toolCalls.onError', message: '"dney" is not a known value; did you mean "deny"?', at: 'dney' },
  ],
  [
    'toolCalls.onTimeout: Allow (case)',
    'agent',
    '  policies:\n    toolCalls: {onTimeout: Allow}\n',
    { severity: 'error', path: 'spec.policies.toolCalls.onTimeout', message: '"Allow" is not a known value; did you mean "allow"?', at: 'Allow' },
  ],
  [
    'decisions.onExpire: denny',
    'agent',
    '  policies:\n    decisions: {onExpire: denny}\n',
    { severity: 'error', path: 'spec.policies.decisions.onExpire', message: '"denny" is not a known value; did you mean "deny"?', at: 'denny' },
  ],
  [
    'overrides.system: nnoe',
    'agent',
    '  overrides: {system: nnoe}\n',
    { severity: 'error', path: 'spec.overrides.system', message: '"nnoe" is not a known value; did you mean "none"?', at: 'nnoe' },
  ],
  [
    'tools[].type: bultin',
    'agent',
    '  tools: [{type: bultin, name: current_time}]\n',
    { severity: 'error', path: 'spec.tools[0].type', message: '"bultin" is not a known value; did you mean "builtin"?', at: 'bultin' },
  ],
  [
    'hookEvents: session.startd',
    'connection',
    '  auth: {type: svc-signed}\n  hookEvents: [session.startd]\n',
    { severity: 'error', path: 'spec.hookEvents[0]', message: '"session.startd" is not a known value; did you mean "session.started"?', at: 'session.startd' },
  ],
  [
    'auth.type: svc-signd',
    'connection',
    '  auth: {type: svc-signd}\n',
    { severity: 'error', path: 'spec.auth.type', message: '"svc-signd" is not a known value; did you mean "svc-signed"?', at: 'svc-signd' },
  ],
  // scopes is closed: anything else is an error, close or not.
  ['scopes: admin', 'apiKey', '  scopes: [admin]\n', { severity: 'error', path: 'spec.scopes[0]', message: 'must be one of "read", "control"', at: 'admin' }],
  // Truly new values of open enumerations: a warning, sent as written.
  [
    'toolLoading.mode: lazy',
    'agent',
    '  toolLoading: {mode: lazy}\n',
    { severity: 'warning', path: 'spec.toolLoading.mode', message: /^"lazy" is not a known value \(eager\): it is sent as written/, at: 'lazy' },
  ],
  [
    'decisions.onExpire: escalate',
    'agent',
    '  policies:\n    decisions: {onExpire: escalate}\n',
    { severity: 'warning', path: 'spec.policies.decisions.onExpire', message: /^"escalate" is not a known value \(deny, allow\)/, at: 'escalate' },
  ],
  [
    'auth.type: oauth',
    'connection',
    '  auth: {type: oauth}\n',
    { severity: 'warning', path: 'spec.auth.type', message: /^"oauth" is not a known value \(svc-signed\)/, at: 'oauth' },
  ],
  // A whole word prefix added or dropped is another word, not a typo.
  [
    'egress mode: restricted (beside unrestricted)',
    'agent',
    '  sandbox:\n    network: {egress: {mode: restricted}}\n',
    { severity: 'warning', path: 'spec.sandbox.network.egress.mode', message: /^"restricted" is not a known value/, at: 'restricted' },
  ],
  [
    'hookEvents: session.restarted',
    'connection',
    '  auth: {type: svc-signed}\n  hookEvents: [session.restarted]\n',
    { severity: 'warning', path: 'spec.hookEvents[0]', message: /^"session\.restarted" is not a known value/, at: 'session.restarted' },
  ],
  // Named values, durations and interpolations pass silently.
  [
    'named values',
    'agent',
    '  policies:\n    toolCalls: {default: allow, byTool: {x: ask, y: deny}, onError: deny, onTimeout: allow}\n    decisions: {onExpire: deny}\n',
    'clean',
  ],
  ['caching.ttl is a duration, not an enumeration', 'agent', '  model: {provider: openai, model: gpt-4o, caching: {mode: auto, ttl: 1h}}\n', 'clean'],
  ['scopes: read, control', 'apiKey', '  scopes: [read, control]\n', 'clean'],
  // A connection's tools (api-contract "Agent tools"): a known value, so no warning.
  ['tools[].type: connection', 'agent', '  tools: [{type: connection, name: github}]\n', 'clean'],
  [
    'tools[].type: conection',
    'agent',
    '  tools: [{type: conection, name: github}]\n',
    { severity: 'error', path: 'spec.tools[0].type', message: '"conection" is not a known value; did you mean "connection"?', at: 'conection' },
  ],
];

describe('enumerations in validate', () => {
  it.each(CASES)('%s', async (_name, file, yaml, expected) => {
    const files = projectWith(file, yaml);
    const problems = await validateProject(writeProject(files), { env: {} });
    if (expected === 'clean') {
      expect(problems).toEqual([]);
      return;
    }
    const [fileName, text] = Object.entries(files)[0] as [string, string];
    expect(problems).toEqual([
      {
        severity: expected.severity,
        message: typeof expected.message === 'string' ? expected.message : expect.stringMatching(expected.message),
        location: { file: fileName, ...where(text, expected.at) },
        jsonPath: expected.path,
      },
    ]);
  });

  it('checks overlays too, at the overlay', async () => {
    const root = 'version: 1\nenvironments:\n  dev: {url: local}\n  prod: {url: local}\n';
    const agents = `${AGENT}${MODEL}overlays:\n  prod:\n    policies:\n      toolCalls: {default: alow}\n`;
    const problems = await validateProject(writeProject({ 'agentform.yaml': root, 'agents.yaml': agents, 'providers.yaml': PROVIDER }), { env: {} });
    expect(problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        message: '"alow" is not a known value; did you mean "allow"?',
        location: { file: 'agents.yaml', ...where(agents, 'alow') },
        jsonPath: 'overlays.prod.policies.toolCalls.default',
      }),
    ]);
  });
});

describe('enumerations in plan', () => {
  it('loading the project (what plan and apply do first) fails on a typo, not on a new value', async () => {
    const typo = await loadProject(writeProject(projectWith('agent', '  policies:\n    toolCalls: {default: alow}\n'))).catch((caught: unknown) => caught);
    expect(typo).toBeInstanceOf(ProblemsError);
    expect((typo as ProblemsError).problems.map((problem) => problem.message)).toEqual([
      'spec.policies.toolCalls.default: "alow" is not a known value; did you mean "allow"?',
    ]);
    await expect(loadProject(writeProject(projectWith('agent', '  policies:\n    toolCalls: {default: escalate}\n')))).resolves.toBeDefined();
  });

  it('agentform plan prints the located error and exits 1 before reading the environment', async () => {
    const dir = writeProject(projectWith('apiKey', '  scopes: [reed]\n'));
    const result = await runCli(['plan', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/keys\.yaml:4:12: spec\.scopes\[0\]: must be one of "read", "control"; did you mean "read"\?/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('likelyTypoOf', () => {
  it.each<[string, string[], string | undefined]>([
    ['alow', ['allow', 'ask', 'deny'], 'allow'],
    ['asks', ['allow', 'ask', 'deny'], 'ask'],
    ['alwo', ['allow'], 'allow'],
    ['ALLOW', ['allow'], 'allow'],
    ['allow', ['allow'], undefined],
    ['all', ['allow'], undefined], // two edits from a short word is another word
    ['1h', ['5m'], undefined],
    ['restricted', ['unrestricted'], undefined],
    ['unrestrictd', ['unrestricted'], 'unrestricted'],
    ['session.restarted', ['session.started'], undefined],
    ['high', ['none'], undefined],
  ])('%j among %j → %j', (value, named, expected) => {
    expect(likelyTypoOf(value, named)).toBe(expected);
  });
});

describe('abbreviationOf', () => {
  it.each<[string, string[], string | undefined]>([
    ['prod', ['production'], 'production'],
    ['PRD', ['production'], 'production'],
    ['product', ['production'], 'production'],
    ['production', ['production'], undefined], // the value itself
    ['pr', ['production'], undefined], // too short to mean anything
    ['pod', ['production'], undefined], // the first two letters differ
    ['prnd', ['production'], undefined], // letters out of order
    ['productions', ['production'], undefined], // longer: not a shortening
    ['preprod', ['production'], undefined],
  ])('%s of %j: %s', (value, named, expected) => {
    expect(abbreviationOf(value, named)).toBe(expected);
  });
});

// An environment's kind changes safety: only `production` makes the built-in rules errors. A near
// miss of it (a typo, a case, an abbreviation) is an error; another kind is a warning, sent as written.
describe('settings.kind of an environment', () => {
  const SAFETY = ' (only kind production makes the built-in policy rules errors)';
  const NEAR_MISS = ['prod', 'Prod', 'PROD', 'prd', 'Production', 'PRODUCTION', 'producton', 'prodution', 'product'];
  const OTHER = ['staging', 'dev', 'development', 'preprod', 'pre-production', 'sandbox', 'pr', 'pod', 'production-eu'];
  const rootWith = (kind: string) => `version: 1\nenvironments:\n  live:\n    url: local\n    settings:\n      kind: ${kind}\n`;

  it.each(NEAR_MISS)('%s is an error: did you mean "production"?', async (kind) => {
    const root = rootWith(kind);
    expect(await validateProject(writeProject({ 'agentform.yaml': root }), { env: {} })).toEqual([
      {
        severity: 'error',
        message: `"${kind}" is not a known value; did you mean "production"?${SAFETY}`,
        location: { file: 'agentform.yaml', line: 6, col: 13 },
        jsonPath: 'environments.live.settings.kind',
      },
    ]);
  });

  it.each(OTHER)('%s is a warning, sent as written', async (kind) => {
    expect(await validateProject(writeProject({ 'agentform.yaml': rootWith(kind) }), { env: {} })).toEqual([
      expect.objectContaining({
        severity: 'warning',
        message: `"${kind}" is not a known value (production): it is sent as written, check that the server accepts it`,
      }),
    ]);
  });

  it('production is clean', async () => {
    expect(await validateProject(writeProject({ 'agentform.yaml': rootWith('production') }), { env: {} })).toEqual([]);
  });

  it('a near miss stops plan before it reads the environment', async () => {
    const loaded = await loadProject(writeProject({ 'agentform.yaml': rootWith('prod') })).catch((caught: unknown) => caught);
    expect(loaded).toBeInstanceOf(ProblemsError);
    expect((loaded as ProblemsError).problems).toEqual([
      {
        message: `environments.live.settings.kind: "prod" is not a known value; did you mean "production"?${SAFETY}`,
        location: { file: expect.stringMatching(/agentform\.yaml$/), line: 6, col: 13 },
      },
    ]);
  });
});
