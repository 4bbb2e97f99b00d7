// The local control plane's request validators precompiled at build time (server/validate.ts):
// the generated file holds a validator for every request schema, gives the same verdicts as ajv
// compiling at run time, and is ignored once it no longer matches the schemas.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, describe, expect, it } from 'vitest';
import { API_PRECOMPILED_FILE, apiSchemasDir, apiValidatorsCode, loadApiPrecompiled } from '../../src/server/validate.js';

const dir = mkdtempSync(join(tmpdir(), 'agentform-api-precompiled-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = join(dir, 'api-validators.precompiled.cjs');
writeFileSync(file, apiValidatorsCode());
const rpcs = readdirSync(apiSchemasDir())
  .filter((name) => name.endsWith('.json'))
  .map((name) => name.slice(0, -5));

type AjvClass = typeof Ajv2020Module.default;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: AjvClass }).default ?? Ajv2020Module) as AjvClass;
type AddFormats = typeof addFormatsModule.default;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as AddFormats;
// A fresh ajv each time: a schema's $id may be added to one instance only once.
const compiledAtRunTime = (rpc: string) => {
  const runtime = new Ajv2020({ allErrors: false, strict: false });
  addFormats(runtime);
  return runtime.compile(JSON.parse(readFileSync(join(apiSchemasDir(), `${rpc}.json`), 'utf8')) as object);
};

describe('precompiled request validators', () => {
  const loaded = loadApiPrecompiled(file);

  it('has one for every request schema', () => {
    expect(loaded).toBeDefined();
    for (const rpc of rpcs) expect(typeof loaded?.[rpc.replace(/[^A-Za-z0-9]/g, '_')], rpc).toBe('function');
    expect(rpcs.length).toBeGreaterThan(30);
  });

  it.each([
    ['agents.upsert', {}],
    ['agents.upsert', { slug: 'a' }],
    ['agents.delete', { slug: '' }],
    ['agents.delete', { slug: 'a' }],
    ['connections.create', { name: 'c', url: 'not a url' }],
    ['connections.create', { name: 'c', url: 'https://tools.example.com/mcp' }],
    ['providers.create', { name: 'p', type: 'openai', baseUrl: 'http://x' }],
    ['providers.create', { name: 'p', type: 42 }],
  ])('%s %j: the same verdict and first error as compiled at run time', (rpc, body) => {
    const precompiled = loaded?.[rpc.replace(/[^A-Za-z0-9]/g, '_')];
    const atRunTime = compiledAtRunTime(rpc);
    expect(precompiled?.(body)).toBe(atRunTime(body));
    const strip = (errors: typeof atRunTime.errors) => errors?.map(({ instancePath, keyword, params }) => ({ instancePath, keyword, params }))[0];
    expect(strip(precompiled?.errors)).toEqual(strip(atRunTime.errors));
  });

  it('is not used once the schemas changed since it was generated (or it is missing)', () => {
    const stale = join(dir, 'stale.cjs');
    writeFileSync(stale, apiValidatorsCode().replace(/exports\.sourceHash = "[0-9a-f]+"/, 'exports.sourceHash = "0"'));
    expect(loadApiPrecompiled(stale)).toBeUndefined();
    expect(loadApiPrecompiled(join(dir, 'missing.cjs'))).toBeUndefined();
  });

  // The bundle's ajv and the standalone generator (required from the package) once were two copies:
  // the file written for dist/cli held `{"_items":…}` for every code object and did not parse, so the
  // bundled server silently compiled every validator at run time (~280 ms of CPU at start).
  it('the file npm run build wrote for the bundled CLI (dist/cli) parses and holds every validator', () => {
    const requireHere = createRequire(import.meta.url);
    const bundled = requireHere(fileURLToPath(new URL(`../../dist/cli/${API_PRECOMPILED_FILE}`, import.meta.url))) as {
      sourceHash: unknown;
      defineValidators(exports: Record<string, unknown>, require: NodeJS.Require): void;
    };
    expect(bundled.sourceHash).toMatch(/^[0-9a-f]{64}$/);
    const validators: Record<string, unknown> = {};
    bundled.defineValidators(validators, requireHere);
    for (const rpc of rpcs) expect(typeof validators[rpc.replace(/[^A-Za-z0-9]/g, '_')], rpc).toBe('function');
  });
});
