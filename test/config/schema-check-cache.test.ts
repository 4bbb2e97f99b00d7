// A document whose text passed its schema is not checked again while the parse cache holds that
// text for the same schemas: the validators are not even loaded. Anything the check reported
// (an error, a warning) is reported on every run, from the cache or not.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProblemList } from '../../src/config/problems.js';
import { readProject } from '../../src/config/project.js';
import { LOCK_FILE, readToolLock, toolLockText } from '../../src/config/tool-lock-file.js';
import { lockConnection } from '../../src/engine/tool-surface.js';
import { ProblemsError } from '../../src/errors.js';
import * as schemas from '../../src/config/schemas.js';

// Which schemas the cache's entries were checked against: a test may pretend they changed.
const schemaHash = vi.hoisted(() => ({ current: undefined as string | undefined }));
vi.mock('../../src/config/schemas.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/config/schemas.js')>();
  return {
    ...actual,
    validators: vi.fn(actual.validators),
    schemaSources: () => schemaHash.current ?? actual.schemaSources(),
  };
});
const validators = vi.mocked(schemas.validators);

const ROOT = 'version: 1\nenvironments:\n  dev: {url: "http://127.0.0.1:1"}\n';
const VALID = 'kind: Agent\nname: a\nspec:\n  system: Answer briefly.\n  model: {provider: openai, model: gpt-4o}\n';
// A value far from the schema's examples: a warning, and the document is still used.
const WARNED = 'kind: Agent\nname: w\nspec:\n  system: Think.\n  model: {provider: openai, model: gpt-4o, reasoning: high}\n';
const INVALID = 'kind: Agent\nname: e\nspec:\n  system: Count.\n  model: {provider: openai, model: gpt-4o}\n  limits: {maxTurns: ten}\n';

let dir: string;
let previousCache: string | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentform-schema-check-cache-'));
  mkdirSync(join(dir, 'project'));
  writeFileSync(join(dir, 'project', 'agentform.yaml'), ROOT);
  previousCache = process.env.AGENTFORM_PARSE_CACHE;
  process.env.AGENTFORM_PARSE_CACHE = join(dir, 'cache');
  schemaHash.current = undefined;
});
afterEach(() => {
  if (previousCache === undefined) delete process.env.AGENTFORM_PARSE_CACHE;
  else process.env.AGENTFORM_PARSE_CACHE = previousCache;
  rmSync(dir, { recursive: true, force: true });
});

/** One run's read of the project: what it found and reported, and whether it used the validators. */
async function run() {
  validators.mockClear();
  const problems = new ProblemList();
  const project = await readProject(join(dir, 'project'), problems);
  return {
    documents: project?.documents.map((document) => ({ name: document.name, valid: document.valid, spec: document.spec })),
    problems: problems.items.map(
      (problem) => `${problem.severity} ${problem.location?.file}:${problem.location?.line}:${problem.location?.col} ${problem.message}`,
    ),
    checked: validators.mock.calls.length > 0,
  };
}

describe('schema checks and the parse cache', () => {
  it('checks a valid project once: the next run reads the same documents, reports nothing and loads no validator', async () => {
    writeFileSync(join(dir, 'project', 'agents.yaml'), VALID);
    const first = await run();
    expect(first).toMatchObject({ problems: [], checked: true });
    expect(await run()).toEqual({ ...first, checked: false });
  });

  it.each([
    ['a warning', WARNED, 'warning agents.yaml:11:55 "high" is not a known value'],
    ['an error', INVALID, 'error agents.yaml:12:22 must be an integer'],
  ])('checks a document with %s on every run, and reports it every time', async (_name, text, reported) => {
    writeFileSync(join(dir, 'project', 'agents.yaml'), `${VALID}---\n${text}`);
    const first = await run();
    expect(first.problems).toEqual([expect.stringContaining(reported)]);
    expect(await run()).toEqual({ ...first, checked: true });
  });

  it('checks a changed file again, and only while it is changed', async () => {
    writeFileSync(join(dir, 'project', 'agents.yaml'), VALID);
    await run();
    writeFileSync(join(dir, 'project', 'agents.yaml'), VALID.replace('gpt-4o', 'gpt-4.1'));
    expect((await run()).checked).toBe(true);
    expect((await run()).checked).toBe(false);
  });

  it('checks everything again against other schemas', async () => {
    writeFileSync(join(dir, 'project', 'agents.yaml'), VALID);
    await run();
    schemaHash.current = 'schemas of another build';
    expect((await run()).checked).toBe(true);
    expect((await run()).checked).toBe(false);
  });

  it('checks every run without a parse cache', async () => {
    process.env.AGENTFORM_PARSE_CACHE = 'off';
    writeFileSync(join(dir, 'project', 'agents.yaml'), VALID);
    await run();
    expect((await run()).checked).toBe(true);
  });

  describe('the tool-surface lock file', () => {
    const lockText = (tools: string[]) =>
      toolLockText({ version: 1, environments: { dev: { search: lockConnection(tools.map((name) => ({ name, inputSchema: { type: 'object' } }))) } } });
    /** One command's read of the lock: what it holds, or the problems it has; whether it used the validators. */
    async function readLock() {
      validators.mockClear();
      try {
        const lock = await readToolLock(join(dir, 'project'));
        return {
          tools: Object.values(lock?.environments.dev ?? {}).flatMap((connection) => connection.tools.map((tool) => tool.name)),
          checked: validators.mock.calls.length > 0,
        };
      } catch (error) {
        if (!(error instanceof ProblemsError)) throw error;
        return {
          problems: error.problems.map((problem) => `${problem.location?.file}:${problem.location?.line}:${problem.location?.col} ${problem.message}`),
          checked: validators.mock.calls.length > 0,
        };
      }
    }

    it('is checked once, then read back from the cache, and again once it changes', async () => {
      writeFileSync(join(dir, 'project', LOCK_FILE), lockText(['fetch', 'search']));
      expect(await readLock()).toEqual({ tools: ['fetch', 'search'], checked: true });
      expect(await readLock()).toEqual({ tools: ['fetch', 'search'], checked: false });
      writeFileSync(join(dir, 'project', LOCK_FILE), lockText(['fetch']));
      expect(await readLock()).toEqual({ tools: ['fetch'], checked: true });
      expect(await readLock()).toEqual({ tools: ['fetch'], checked: false });
    });

    it('that fails its schema fails on every read, with the same located problems', async () => {
      writeFileSync(join(dir, 'project', LOCK_FILE), lockText(['fetch']).replace('version: 1', 'version: 2'));
      const first = await readLock();
      expect(first).toMatchObject({ checked: true, problems: [expect.stringMatching(new RegExp(`^${LOCK_FILE.replace('.', '\\.')}:\\d+:\\d+ `))] });
      expect(await readLock()).toEqual(first);
    });

    it("keeps the project's cache whole: reading one does not make the other miss", async () => {
      writeFileSync(join(dir, 'project', 'agents.yaml'), VALID);
      writeFileSync(join(dir, 'project', LOCK_FILE), lockText(['fetch']));
      await run();
      await readLock();
      expect((await run()).checked).toBe(false);
      expect((await readLock()).checked).toBe(false);
    });
  });
});
