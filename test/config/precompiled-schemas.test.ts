// The precompiled validators (ajv standalone code, written by `npm run build`) report exactly the
// errors of the validators compiled at run time — keyword, paths, params, message, and the verbose
// schema / parentSchema / data — over every document of the fixtures and examples plus hand-written
// cases for each keyword the schemas use. The module under test is generated here, into a temp dir,
// by the same function the build calls, and loaded the way validators() loads it.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { precompiledValidatorsCode } from '../../src/build/schemas-precompile.js';
import {
  compileValidators,
  DOCUMENT_KINDS,
  type Compiled,
  type DocumentKind,
  loadPrecompiledValidators,
  precompiledSpecsPath,
  precompiledValidators,
  PRECOMPILED_FILE,
  type Validator,
} from '../../src/config/schemas.js';

const REPO = join(import.meta.dirname, '..', '..');

interface Case {
  name: string;
  validator: (validators: Compiled) => Validator;
  data: unknown;
}

const documentCase = (name: string, kind: DocumentKind | 'root', data: unknown): Case => ({ name, validator: (v) => v.documents[kind], data });
const specCase = (name: string, kind: DocumentKind, data: unknown): Case => ({ name, validator: (v) => v.specs[kind], data });

const agent = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  kind: 'Agent',
  name: 'support',
  spec: { model: { provider: 'openai', model: 'gpt-4o' }, system: 'Be helpful.', ...spec },
  ...extra,
});
const provider = (spec: Record<string, unknown>) => ({ kind: 'Provider', name: 'openai', spec: { type: 'openai', ...spec } });
const root = (extra: Record<string, unknown>) => ({ version: 1, environments: { dev: { url: 'local' } }, ...extra });

const HAND_WRITTEN: Case[] = [
  documentCase('valid agent', 'Agent', agent({})),
  // x-suggest: a near miss of a named value warns; a far one, an interpolation or a non-string does not.
  documentCase(
    'x-suggest: typos',
    'Agent',
    agent({
      model: { provider: 'openai', model: 'gpt-4o', reasoning: 'nnoe' },
      compaction: { mode: 'AUTO', preserve: ['tool_result', 'tool_results'] },
      policies: { toolCalls: { default: 'alow', byTool: { search: 'deny', fetch: 'alloww' } } },
      tools: [{ type: 'bultin', name: 'current_time' }],
    }),
  ),
  documentCase('x-suggest: far from any example', 'Agent', agent({ model: { provider: 'openai', model: 'gpt-4o', reasoning: 'high' } })),
  documentCase('x-suggest: interpolated', 'Agent', agent({ model: { provider: 'openai', model: 'gpt-4o', reasoning: 'non${var:x}' } })),
  documentCase('x-suggest: not a string', 'Agent', agent({ model: { provider: 'openai', model: 'gpt-4o', reasoning: 5 } })),
  documentCase('x-suggest: connection', 'Connection', {
    kind: 'Connection',
    name: 'tools',
    spec: { transport: 'streamable-htp', auth: { type: 'svc-signd' } },
  }),
  documentCase('x-suggest: api key scopes', 'ApiKey', { kind: 'ApiKey', name: 'ci', spec: { scopes: ['raed', 'control'] } }),
  documentCase('x-suggest: root environment kind', 'root', root({ environments: { prod: { url: 'local', kind: 'prodution' } } })),
  documentCase('x-suggest with x-changes-safety: settings.kind', 'root', root({ environments: { live: { url: 'local', settings: { kind: 'prod' } } } })),
  documentCase('required', 'Agent', { kind: 'Agent', spec: { model: { provider: 'openai' } } }),
  documentCase('additionalProperties', 'Agent', agent({ unknownKey: 1, limits: { maxTurns: 3, maxTurn: 3 } }, { extra: true })),
  documentCase('type', 'Agent', agent({ system: 5, tools: {}, limits: { maxTurns: 'ten' } }, { name: 7, protect: 'yes' })),
  documentCase(
    'minimum and maximum',
    'Agent',
    agent({ limits: { maxTurns: -1 }, compaction: { thresholdPercent: 101 } }, { promote: { from: 'dev', version: 0 } }),
  ),
  documentCase('pattern, minLength, maxLength', 'Agent', agent({}, { name: 'bad name!' })),
  documentCase('minLength', 'Agent', agent({}, { name: '' })),
  documentCase('maxLength', 'Agent', agent({}, { name: 'a'.repeat(101) })),
  documentCase('uniqueItems', 'Agent', agent({}, { environments: ['dev', 'prod', 'dev'] })),
  documentCase('const', 'Agent', { ...agent({}), kind: 'Agnet' }),
  documentCase('not an object', 'Agent', ['Agent']),
  documentCase('oneOf: literal secret', 'Provider', provider({ secret: 'sk-literal' })),
  documentCase('oneOf: object secret with an unknown key', 'Provider', provider({ secret: { value: '${env:KEY}', extra: 1 } })),
  documentCase('oneOf: neither string nor object', 'Provider', provider({ secret: 5 })),
  documentCase('oneOf: bad rotation marker', 'Provider', provider({ secret: { value: '${env:KEY}', rotatedAt: 'yesterday' } })),
  documentCase('oneOf: valid', 'Provider', provider({ secret: '${env:KEY}' })),
  documentCase('root: minProperties', 'root', root({ environments: {} })),
  documentCase('root: propertyNames', 'root', root({ environments: { Bad_Name: { url: 'local' } } })),
  documentCase('root: const version', 'root', root({ version: 2 })),
  documentCase('root: missing', 'root', {}),
  specCase('spec: required', 'Agent', { model: { provider: 'openai' } }),
  specCase('spec: type and x-suggest', 'Agent', { system: 5, model: { provider: 'openai', model: 'gpt-4o', reasoning: 'nnoe' } }),
  specCase('spec: valid', 'Agent', { system: 'x', model: { provider: 'openai', model: 'gpt-4o' } }),
  specCase('spec: provider oneOf', 'Provider', { type: 'openai', secret: 'plain' }),
  specCase('spec: connection', 'Connection', { transport: 'streamable-htp', bogus: true }),
  specCase('spec: secret', 'Secret', { value: 5 }),
  specCase('spec: api key', 'ApiKey', { scopes: 'read' }),
];

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every well-formed document of the fixtures and examples, with the validators project.ts and build.ts apply to it. */
function fixtureCases(): Case[] {
  const cases: Case[] = [];
  for (const file of [...yamlFiles(join(REPO, 'test', 'fixtures')), ...yamlFiles(join(REPO, 'examples'))]) {
    const name = relative(REPO, file);
    let documents;
    try {
      documents = parseAllDocuments(readFileSync(file, 'utf8'));
    } catch {
      continue;
    }
    for (const [index, document] of (Array.isArray(documents) ? documents : [documents]).entries()) {
      if (document.errors.length > 0) continue;
      const value: unknown = document.toJS();
      const label = `${name}#${index}`;
      if (/^agentform\.ya?ml$/.test(file.split('/').pop() ?? '')) {
        cases.push(documentCase(label, 'root', value));
        continue;
      }
      if (!isObject(value) || !(DOCUMENT_KINDS as readonly unknown[]).includes(value.kind)) continue;
      const kind = value.kind as DocumentKind;
      cases.push(documentCase(label, kind, value));
      if (value.spec !== undefined) cases.push(specCase(`${label} spec`, kind, value.spec));
      // Overlays alone are partial specs: a good source of required and type errors.
      if (isObject(value.overlays)) {
        for (const [environment, overlay] of Object.entries(value.overlays)) cases.push(specCase(`${label} overlay ${environment}`, kind, overlay));
      }
    }
  }
  return cases;
}

function outcome(validate: Validator, data: unknown) {
  const valid = validate(data);
  return { valid, errors: validate.errors ?? null };
}

let dir: string;
let precompiled: Compiled;
let runtime: Compiled;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentform-precompiled-'));
  const path = join(dir, PRECOMPILED_FILE);
  writeFileSync(path, precompiledValidatorsCode('documents'));
  writeFileSync(precompiledSpecsPath(path), precompiledValidatorsCode('specs'));
  const loaded = loadPrecompiledValidators(path);
  if (!loaded) throw new Error('the freshly generated validators were not loaded');
  precompiled = loaded;
  runtime = compileValidators();
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('precompiled validators', () => {
  const fixtures = fixtureCases();

  it('cover a broad table', () => {
    expect(fixtures.length).toBeGreaterThan(100);
  });

  it.each([...HAND_WRITTEN, ...fixtures].map((testCase) => [testCase.name, testCase] as const))(
    '%s: same errors as compiled at run time',
    (_name, testCase) => {
      const expected = outcome(testCase.validator(runtime), testCase.data);
      const actual = outcome(testCase.validator(precompiled), testCase.data);
      // toStrictEqual: the verbose schema and parentSchema are copies in the precompiled code, equal in value.
      expect(actual).toStrictEqual(expected);
    },
  );

  it('the table triggers every keyword the schemas check', () => {
    const keywords = new Set<string>();
    for (const testCase of [...HAND_WRITTEN, ...fixtures]) {
      const validate = testCase.validator(precompiled);
      if (!validate(testCase.data)) for (const error of validate.errors ?? []) keywords.add(error.keyword);
    }
    // The schemas use no anyOf: open enumerations are x-suggest, closed ones (key scopes) enum, alternatives oneOf.
    for (const keyword of [
      'x-suggest',
      'enum',
      'required',
      'additionalProperties',
      'type',
      'const',
      'minimum',
      'maximum',
      'pattern',
      'minLength',
      'maxLength',
      'uniqueItems',
      'minProperties',
      'propertyNames',
      'oneOf',
    ]) {
      expect(keywords, keyword).toContain(keyword);
    }
  });

  it('x-suggest reports every value it does not know (schema-errors.ts judges typo or new), and only those', () => {
    const validate = precompiled.documents.Agent;
    for (const reasoning of ['nnoe', 'high']) {
      expect(validate(agent({ model: { provider: 'openai', model: 'gpt-4o', reasoning } }))).toBe(false);
      expect(validate.errors?.map((error) => [error.keyword, error.instancePath])).toEqual([['x-suggest', '/spec/model/reasoning']]);
    }
    expect(validate(agent({ model: { provider: 'openai', model: 'gpt-4o', reasoning: 'none' } }))).toBe(true);
    expect(validate(agent({ model: { provider: 'openai', model: 'gpt-4o', reasoning: '${var:effort}' } }))).toBe(true);
  });
});

describe('loading precompiled validators', () => {
  it('ignores a file generated from other schemas', () => {
    const stale = join(dir, 'stale.cjs');
    const code = precompiledValidatorsCode('documents').replace(/^exports\.sources = .*;$/m, 'exports.sources = "stale";');
    expect(code).toContain('exports.sources = "stale";');
    writeFileSync(stale, code);
    expect(loadPrecompiledValidators(stale)).toBeUndefined();
  });

  it('ignores a missing file', () => {
    expect(loadPrecompiledValidators(join(dir, 'missing.cjs'))).toBeUndefined();
  });

  it('ignores a broken file', () => {
    const broken = join(dir, 'broken.cjs');
    writeFileSync(broken, precompiledValidatorsCode('documents').slice(0, 5000));
    expect(loadPrecompiledValidators(broken)).toBeUndefined();
  });

  // What validators() uses: each file on first use, so checking merged specs (templates, overlays)
  // over a warm parse cache never loads the documents' file, the larger one.
  it('reads neither file before a validator of its part is used', () => {
    const path = join(dir, 'both-lazy', PRECOMPILED_FILE);
    mkdirSync(dirname(path));
    const marked = (part: 'documents' | 'specs') =>
      precompiledValidatorsCode(part).replace(
        /^exports\.sources = /m,
        `globalThis.agentformLoaded = [...(globalThis.agentformLoaded ?? []), '${part}'];\nexports.sources = `,
      );
    writeFileSync(path, marked('documents'));
    writeFileSync(precompiledSpecsPath(path), marked('specs'));
    const loadedParts = () => (globalThis as { agentformLoaded?: string[] }).agentformLoaded ?? [];
    const lazy = precompiledValidators(path);
    expect(loadedParts()).toEqual([]);
    const bad = { model: { provider: 1 }, surprise: true };
    expect(outcome(lazy.specs.Agent, bad)).toStrictEqual(outcome(runtime.specs.Agent, bad));
    expect(loadedParts()).toEqual(['specs']);
    expect(outcome(lazy.documents.Agent, agent({}))).toStrictEqual(outcome(runtime.documents.Agent, agent({})));
    expect(loadedParts()).toEqual(['specs', 'documents']);
  });

  it('compiles the documents’ validators when their file is stale, and still reads the specs’ file', () => {
    const path = join(dir, 'documents-stale', PRECOMPILED_FILE);
    mkdirSync(dirname(path));
    writeFileSync(path, precompiledValidatorsCode('documents').replace(/^exports\.sources = .*;$/m, 'exports.sources = "stale";'));
    writeFileSync(precompiledSpecsPath(path), precompiledValidatorsCode('specs'));
    const lazy = precompiledValidators(path);
    const bad = agent({ surprise: true });
    expect(outcome(lazy.documents.Agent, bad)).toStrictEqual(outcome(runtime.documents.Agent, bad));
    expect(outcome(lazy.documents.Agent, bad).valid).toBe(false);
    expect(lazy.documents.Agent).toBe(lazy.documents.Agent);
  });

  // The spec validators (a third of the code) are loaded on first use only; without a usable
  // file of them, they are compiled here, with the same results.
  it('reads the spec validators’ file only when a spec validator is first used', () => {
    const path = join(dir, 'specs-lazy', PRECOMPILED_FILE);
    mkdirSync(dirname(path));
    writeFileSync(path, precompiledValidatorsCode('documents'));
    const loaded = loadPrecompiledValidators(path)!;
    // Written after loading: only a lazy loader sees it.
    const sources = /^exports\.sources = (.*);$/m.exec(precompiledValidatorsCode('specs'))![1];
    writeFileSync(
      precompiledSpecsPath(path),
      `exports.sources = ${sources};\nexports.defineValidators = (e) => { for (const k of ['Agent','Provider','Connection','Secret','ApiKey']) e[k + '.spec'] = () => 'from the file'; };\n`,
    );
    expect((loaded.specs.Agent as unknown as () => string)()).toBe('from the file');
  });

  it.each([
    ['missing', null],
    ['broken', 'exports.sources = ('],
    ['stale', precompiledValidatorsCode('specs').replace(/^exports\.sources = .*;$/m, 'exports.sources = "stale";')],
  ])('compiles the spec validators when their file is %s, with the same results', (name, specsCode) => {
    const path = join(dir, `specs-${name}`, PRECOMPILED_FILE);
    mkdirSync(dirname(path));
    writeFileSync(path, precompiledValidatorsCode('documents'));
    if (specsCode !== null) writeFileSync(precompiledSpecsPath(path), specsCode);
    const loaded = loadPrecompiledValidators(path)!;
    const bad = { model: { provider: 1 }, surprise: true };
    expect(outcome(loaded.specs.Agent, bad)).toStrictEqual(outcome(runtime.specs.Agent, bad));
    expect(outcome(loaded.specs.Agent, bad).valid).toBe(false);
    expect(loaded.specs.Agent).toBe(loaded.specs.Agent);
  });
});
