// The content-addressed parse cache: a hit gives exactly what parsing gives; anything else misses.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CachedParse, openParseCache, type ParseCache } from '../../src/config/parse-cache.js';
import { parseCacheDir } from '../../src/config/parse-cache-dir.js';
import { readProject } from '../../src/config/project.js';
import { ProblemList } from '../../src/config/problems.js';
import { type ParsedFile, parseYamlText } from '../../src/config/yaml-source.js';

const AGENT = 'kind: Agent\nname: a\nspec:\n  system: |\n    hello\n  limits: {maxTurns: 3}\n---\nkind: Agent\nname: b\nspec: {tools: [x, y]}\n';

let dir: string;
let cache: ParseCache;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentform-parse-cache-'));
  cache = openParseCache(dir, { AGENTFORM_PARSE_CACHE: join(dir, 'cache') })!;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));
/** A parse as the cache gives it back: with whether each document passed its schema when stored. */
const stored = (parsed: ParsedFile, schemaValid: readonly boolean[] = []): CachedParse => ({
  parsed,
  schemaValid: parsed.documents.map((_document, position) => schemaValid[position] === true),
});
/** The next run's cache: the same project, the same cache directory. */
const reopen = (): ParseCache => openParseCache(dir, { AGENTFORM_PARSE_CACHE: join(dir, 'cache') })!;

describe('parse cache', () => {
  it('gives back exactly what parsing gave, and which documents passed their schema, in this run and the next, stored privately', () => {
    const parsed = parseYamlText('agents.yaml', AGENT);
    expect(cache.get('agents.yaml', AGENT)).toBeUndefined();
    cache.set('agents.yaml', AGENT, parsed, [true, false]);
    expect(cache.get('agents.yaml', AGENT)).toEqual(stored(parsed, [true, false]));
    cache.close();
    expect(reopen().get('agents.yaml', AGENT)).toEqual(stored(parsed, [true, false]));
    // One file, the pack.
    const [entry, ...others] = readdirSync(join(dir, 'cache'));
    expect(others).toEqual([]);
    expect(statSync(join(dir, 'cache')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'cache', entry!)).mode & 0o777).toBe(0o600);
  });

  it('misses on another text or another file name', () => {
    cache.set('agents.yaml', AGENT, parseYamlText('agents.yaml', AGENT), []);
    expect(cache.get('agents.yaml', AGENT.replace('maxTurns: 3', 'maxTurns: 4'))).toBeUndefined();
    expect(cache.get('other.yaml', AGENT)).toBeUndefined();
  });

  // AGENTFORM_YAML_PARSER=library (yaml-source.ts) is a way around the plain parser: not around it
  // through the cache.
  it('misses on entries the other YAML parser made', () => {
    cache.set('agents.yaml', AGENT, parseYamlText('agents.yaml', AGENT), []);
    cache.close();
    const library = openParseCache(dir, { AGENTFORM_PARSE_CACHE: join(dir, 'cache'), AGENTFORM_YAML_PARSER: 'library' })!;
    expect(library.get('agents.yaml', AGENT)).toBeUndefined();
    expect(reopen().get('agents.yaml', AGENT)).toBeDefined();
  });

  it.each([
    ['a file with problems', 'kind: Agent\nname: a\nname: b\n'],
    ['a value JSON cannot carry (.nan)', 'kind: Agent\nname: a\nspec: {x: .nan}\n'],
    ['a value JSON cannot carry (-.inf)', 'kind: Agent\nname: a\nspec: {x: -.inf}\n'],
    ['an empty file', ''],
  ])('never stores %s', (_name, text) => {
    cache.set('f.yaml', text, parseYamlText('f.yaml', text), []);
    expect(cache.get('f.yaml', text)).toBeUndefined();
  });

  it("is off with AGENTFORM_PARSE_CACHE=off, and lives in the project's .agentform/ otherwise", () => {
    expect(openParseCache('/p', { AGENTFORM_PARSE_CACHE: 'off' })).toBeUndefined();
    expect(parseCacheDir({}, '/p')).toBe(join('/p', '.agentform', 'cache', 'parse'));
    expect(parseCacheDir({ AGENTFORM_PARSE_CACHE: '/elsewhere' }, '/p')).toBe('/elsewhere');
  });

  it.each([
    [{ AGENTFORM_OPTIMIZATIONS: 'off' }, undefined],
    [{ AGENTFORM_OPTIMIZATIONS: ' OFF ', AGENTFORM_PARSE_CACHE: '/elsewhere' }, undefined],
    [{ AGENTFORM_OPTIMIZATIONS: 'on' }, join('/p', '.agentform', 'cache', 'parse')],
  ])('follows the off switch of every speed-up (%j)', (env, expected) => {
    expect(parseCacheDir(env, '/p')).toBe(expected);
  });

  it('an unwritable cache only costs time', () => {
    writeFileSync(join(dir, 'file'), '');
    const broken = openParseCache(dir, { AGENTFORM_PARSE_CACHE: join(dir, 'file', 'cache') })!;
    broken.set('agents.yaml', AGENT, parseYamlText('agents.yaml', AGENT), []);
    expect(broken.get('agents.yaml', AGENT)).toBeUndefined();
  });

  it('a project read twice (the second time from the cache) gives the same documents and locations', async () => {
    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'agentform.yaml'), 'version: 1\nenvironments:\n  dev: {url: "http://127.0.0.1:1"}\n');
    writeFileSync(join(project, 'agents.yaml'), AGENT);
    const previous = process.env.AGENTFORM_PARSE_CACHE;
    process.env.AGENTFORM_PARSE_CACHE = join(dir, 'project-cache');
    try {
      const read = async () => {
        const result = await readProject(project, new ProblemList());
        return result!.documents.map((document) => ({ name: document.name, spec: document.spec, at: document.source.locate(['spec', 'limits', 'maxTurns']) }));
      };
      const first = await read();
      // One pack holds the root file and the resource file.
      expect(readdirSync(join(dir, 'project-cache'))).toHaveLength(1);
      expect(await read()).toEqual(first);
    } finally {
      if (previous === undefined) delete process.env.AGENTFORM_PARSE_CACHE;
      else process.env.AGENTFORM_PARSE_CACHE = previous;
    }
  });

  it('a changed template changes the agents that extend it, though their own file comes from the cache', async () => {
    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'agentform.yaml'), 'version: 1\nenvironments:\n  dev: {url: "http://127.0.0.1:1"}\n');
    writeFileSync(join(project, 'agents.yaml'), 'kind: Agent\nname: a\nextends: t\nparams: {turns: 4}\n');
    const template = (system: string) =>
      `kind: AgentTemplate\nname: t\nparams: {turns: {}}\nspec: {system: ${system}, limits: {maxTurns: "\${param:turns}"}}\n`;
    writeFileSync(join(project, 'templates.yaml'), template('one'));
    const previous = process.env.AGENTFORM_PARSE_CACHE;
    process.env.AGENTFORM_PARSE_CACHE = join(dir, 'project-cache');
    try {
      const specOfA = async () => (await readProject(project, new ProblemList()))!.documents.find((document) => document.name === 'a')?.spec;
      expect(await specOfA()).toEqual({ system: 'one', limits: { maxTurns: 4 } });
      expect(await specOfA()).toEqual({ system: 'one', limits: { maxTurns: 4 } });
      writeFileSync(join(project, 'templates.yaml'), template('two'));
      expect(await specOfA()).toEqual({ system: 'two', limits: { maxTurns: 4 } });
    } finally {
      if (previous === undefined) delete process.env.AGENTFORM_PARSE_CACHE;
      else process.env.AGENTFORM_PARSE_CACHE = previous;
    }
  });

  // An agent whose own spec leaves required keys to its template or to overlays passes its own
  // check: the verdict is kept, so a warm run does not check (and load the validators for) it again.
  it('keeps the verdict of an agent whose spec leaves keys to a template or an overlay', async () => {
    const project = join(dir, 'partial');
    mkdirSync(project);
    writeFileSync(join(project, 'agentform.yaml'), 'version: 1\nenvironments:\n  dev: {url: "http://127.0.0.1:1"}\n');
    writeFileSync(join(project, 'templates.yaml'), 'kind: AgentTemplate\nname: t\nspec: {model: {provider: p, model: m}, system: s}\n');
    const agents =
      'kind: Agent\nname: templated\nextends: t\nspec: {limits: {maxTurns: 3}}\n---\n' +
      'kind: Agent\nname: overlaid\nspec: {model: {provider: p, model: m}}\noverlays: {dev: {system: s}}\n';
    writeFileSync(join(project, 'agents.yaml'), agents);
    const env = { AGENTFORM_PARSE_CACHE: join(dir, 'partial-cache') };
    const previous = process.env.AGENTFORM_PARSE_CACHE;
    process.env.AGENTFORM_PARSE_CACHE = env.AGENTFORM_PARSE_CACHE;
    try {
      const problems = new ProblemList();
      await readProject(project, problems);
      expect(problems.items).toEqual([]);
    } finally {
      if (previous === undefined) delete process.env.AGENTFORM_PARSE_CACHE;
      else process.env.AGENTFORM_PARSE_CACHE = previous;
    }
    expect(openParseCache(project, env)!.get('agents.yaml', agents)?.schemaValid).toEqual([true, true]);
  });

  describe('its pack (one file per project)', () => {
    const B = 'kind: Agent\nname: c\nspec: {limits: {maxTurns: 5}}\n';
    const packIn = (cacheDir: string) => readdirSync(cacheDir).filter((name) => name.endsWith('.pack'));

    it('is not written by a run that parsed nothing', () => {
      cache.set('a.yaml', AGENT, parseYamlText('a.yaml', AGENT), []);
      cache.close();
      const [pack] = packIn(join(dir, 'cache'));
      const before = statSync(join(dir, 'cache', pack!));
      const warm = reopen();
      expect(warm.get('a.yaml', AGENT)).toBeDefined();
      warm.close();
      const after = statSync(join(dir, 'cache', pack!));
      expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    });

    it('holds, after a run that parsed something, exactly the files that run read', () => {
      cache.set('a.yaml', AGENT, parseYamlText('a.yaml', AGENT), []);
      cache.set('b.yaml', B, parseYamlText('b.yaml', B), []);
      cache.close();
      // The next run: a.yaml unchanged (read back, before and after the edit is parsed), b.yaml
      // gone, c.yaml new.
      const next = reopen();
      expect(next.get('a.yaml', AGENT)).toBeDefined();
      expect(next.get('c.yaml', B)).toBeUndefined();
      next.set('c.yaml', B, parseYamlText('c.yaml', B), []);
      next.close();
      const third = reopen();
      expect(third.get('a.yaml', AGENT)).toEqual(stored(parseYamlText('a.yaml', AGENT)));
      expect(third.get('c.yaml', B)).toEqual(stored(parseYamlText('c.yaml', B)));
      expect(third.get('b.yaml', B)).toBeUndefined();
      third.close();
      expect(packIn(join(dir, 'cache'))).toHaveLength(1);
    });

    it('keeps a file’s newer text when a run that read the older one parses it again', () => {
      cache.set('a.yaml', AGENT, parseYamlText('a.yaml', AGENT), []);
      cache.close();
      const next = reopen();
      expect(next.get('a.yaml', AGENT)).toBeDefined();
      next.set('a.yaml', B, parseYamlText('a.yaml', B), []);
      next.close();
      const third = reopen();
      expect(third.get('a.yaml', B)).toEqual(stored(parseYamlText('a.yaml', B)));
      expect(third.get('a.yaml', AGENT)).toBeUndefined();
    });

    it('removes, when it is written, the one-file-per-entry cache of earlier versions and the leftovers of writers that are gone', () => {
      const cacheDir = join(dir, 'cache');
      mkdirSync(cacheDir, { recursive: true });
      const legacy = `${'ab'.repeat(32)}.json`;
      // pid 2^22 + 1 is above Linux's pid_max: no such process.
      const abandoned = `.project.pack.${2 ** 22 + 1}.0a1b2c3d4e5f.tmp`;
      const ours = `.project.pack.${process.pid}.0a1b2c3d4e5f.tmp`;
      const unrelated = 'notes.txt';
      for (const name of [legacy, abandoned, ours, unrelated]) writeFileSync(join(cacheDir, name), '{}');
      cache.set('a.yaml', AGENT, parseYamlText('a.yaml', AGENT), []);
      cache.close();
      expect(readdirSync(cacheDir).sort()).toEqual([ours, unrelated, ...packIn(cacheDir)].sort());
    });

    it.each([
      ['cut short', (pack: Buffer) => pack.subarray(0, pack.length - 7)],
      ['with its index garbled', (pack: Buffer) => Buffer.from(pack.toString('latin1').replace('"entries":{', '"entries":['), 'latin1')],
      ['empty', () => Buffer.alloc(0)],
      // It starts with what made it (the parser's format, its version, its code; then the schemas').
      ['of another parser', (pack: Buffer) => Buffer.concat([Buffer.from('9'), pack.subarray(1)])],
      ['of other schemas', (pack: Buffer) => Buffer.from(pack.toString('latin1').replace('"$schema"', '"$schemX"'), 'latin1')],
      // Its entry's text changed in place: the entry is not used for the file's text.
      ['with an entry made from other text', (pack: Buffer) => Buffer.from(pack.toString('latin1').replace('name: a\n', 'name: z\n'), 'latin1')],
      // An index as before the twelfth session (the parser's digest under "parser", no "madeBy"),
      // same length, over entries that would otherwise be read.
      [
        'of the format before',
        (pack: Buffer) =>
          Buffer.from(
            pack.toString('latin1').replace(/"madeBy":(\d+)/, (_all, length: string) => `"parser":"${'a'.repeat(length.length - 2)}"`),
            'latin1',
          ),
      ],
    ])('is a miss when it is %s, and is written whole again', (_name, spoil) => {
      cache.set('a.yaml', AGENT, parseYamlText('a.yaml', AGENT), []);
      cache.close();
      const path = join(dir, 'cache', packIn(join(dir, 'cache'))[0]!);
      writeFileSync(path, spoil(readFileSync(path)));
      const next = reopen();
      expect(next.get('a.yaml', AGENT)).toBeUndefined();
      next.set('a.yaml', AGENT, parseYamlText('a.yaml', AGENT), []);
      next.close();
      expect(reopen().get('a.yaml', AGENT)).toEqual(stored(parseYamlText('a.yaml', AGENT)));
    });

    it('keeps one pack per project in a directory AGENTFORM_PARSE_CACHE names for several', () => {
      const shared = join(dir, 'shared');
      const one = openParseCache(join(dir, 'one'), { AGENTFORM_PARSE_CACHE: shared })!;
      one.set('a.yaml', AGENT, parseYamlText('a.yaml', AGENT), []);
      one.close();
      const two = openParseCache(join(dir, 'two'), { AGENTFORM_PARSE_CACHE: shared })!;
      two.set('a.yaml', B, parseYamlText('a.yaml', B), []);
      two.close();
      expect(packIn(shared)).toHaveLength(2);
      expect(openParseCache(join(dir, 'one'), { AGENTFORM_PARSE_CACHE: shared })!.get('a.yaml', AGENT)).toBeDefined();
      expect(openParseCache(join(dir, 'two'), { AGENTFORM_PARSE_CACHE: shared })!.get('a.yaml', B)).toBeDefined();
    });

    it('is whole after two runs wrote it at once (the last one to finish wins)', () => {
      const first = reopen();
      const second = reopen();
      first.set('a.yaml', AGENT, parseYamlText('a.yaml', AGENT), []);
      second.set('b.yaml', B, parseYamlText('b.yaml', B), []);
      first.close();
      second.close();
      const next = reopen();
      expect(next.get('b.yaml', B)).toEqual(stored(parseYamlText('b.yaml', B)));
      expect(next.get('a.yaml', AGENT)).toBeUndefined();
      expect(readdirSync(join(dir, 'cache'))).toHaveLength(1);
    });

    it.each([
      ['its own directory', false, [/^lock\.pack$/, /^project\.pack$/]],
      ['a directory AGENTFORM_PARSE_CACHE names', true, [/^[0-9a-f]{16}\.lock\.pack$/, /^[0-9a-f]{16}\.pack$/]],
    ])("of the lock file lives beside the project's, in %s: writing one keeps the other, however old", (_where, shared, names) => {
      const project = join(dir, 'p');
      const packs = shared ? join(dir, 'shared') : join(project, '.agentform', 'cache', 'parse');
      const env = shared ? { AGENTFORM_PARSE_CACHE: packs } : {};
      const projectCache = openParseCache(project, env)!;
      projectCache.set('a.yaml', AGENT, parseYamlText('a.yaml', AGENT), [true, true]);
      projectCache.close();
      // Not written for a month: packs that old are removed, other projects' (or abandoned) ones.
      const month = Date.now() / 1000 - 31 * 24 * 3600;
      for (const name of readdirSync(packs)) utimesSync(join(packs, name), month, month);
      // Its first pack: removing what is old is then certain to run.
      const lockCache = openParseCache(project, env, 'lock')!;
      expect(lockCache.get('a.yaml', AGENT)).toBeUndefined();
      lockCache.set('agentform.lock.yaml', B, parseYamlText('agentform.lock.yaml', B), [true]);
      lockCache.close();
      const found = readdirSync(packs).sort();
      expect(found).toHaveLength(2);
      found.forEach((name, position) => expect(name).toMatch(names[position]!));
      expect(openParseCache(project, env)!.get('a.yaml', AGENT)).toEqual(stored(parseYamlText('a.yaml', AGENT), [true, true]));
      expect(openParseCache(project, env, 'lock')!.get('agentform.lock.yaml', B)).toEqual(stored(parseYamlText('agentform.lock.yaml', B), [true]));
    });
  });
});
