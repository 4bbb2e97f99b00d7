// The content-addressed parse cache: a hit gives exactly what parsing gives; anything else misses.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openParseCache, type ParseCache } from '../../src/config/parse-cache.js';
import { parseCacheDir } from '../../src/config/parse-cache-dir.js';
import { readProject } from '../../src/config/project.js';
import { ProblemList } from '../../src/config/problems.js';
import { parseYamlText } from '../../src/config/yaml-source.js';
import { sharingFirstClass } from '../helpers/hidden-class.js';

const AGENT = 'kind: Agent\nname: a\nspec:\n  system: |\n    hello\n  limits: {maxTurns: 3}\n---\nkind: Agent\nname: b\nspec: {tools: [x, y]}\n';

let dir: string;
let cache: ParseCache;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentform-parse-cache-'));
  cache = openParseCache(dir, { AGENTFORM_PARSE_CACHE: join(dir, 'cache') })!;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('parse cache', () => {
  it('gives back exactly what parsing gave, stored privately', () => {
    const parsed = parseYamlText('agents.yaml', AGENT);
    expect(cache.get('agents.yaml', AGENT)).toBeUndefined();
    cache.set('agents.yaml', AGENT, parsed);
    expect(cache.get('agents.yaml', AGENT)).toEqual(parsed);
    const [entry] = readdirSync(join(dir, 'cache'));
    expect(statSync(join(dir, 'cache')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'cache', entry!)).mode & 0o777).toBe(0o600);
  });

  // A project's documents are read back by the thousand: they share one hidden class.
  it('gives back documents that share one hidden class', () => {
    const text = Array.from({ length: 100 }, (_, index) => `kind: Agent\nname: a${index}\nspec: {limits: {maxTurns: 3}}\n`).join('---\n');
    cache.set('agents.yaml', text, parseYamlText('agents.yaml', text));
    const documents = cache.get('agents.yaml', text)!.documents;
    expect(documents).toHaveLength(100);
    expect(sharingFirstClass(documents)).toBe(100);
  });

  it('misses on another text or another file name', () => {
    cache.set('agents.yaml', AGENT, parseYamlText('agents.yaml', AGENT));
    expect(cache.get('agents.yaml', AGENT.replace('maxTurns: 3', 'maxTurns: 4'))).toBeUndefined();
    expect(cache.get('other.yaml', AGENT)).toBeUndefined();
  });

  it.each([
    ['a file with problems', 'kind: Agent\nname: a\nname: b\n'],
    ['a value JSON cannot carry (.nan)', 'kind: Agent\nname: a\nspec: {x: .nan}\n'],
    ['a value JSON cannot carry (-.inf)', 'kind: Agent\nname: a\nspec: {x: -.inf}\n'],
    ['an empty file', ''],
  ])('never stores %s', (_name, text) => {
    cache.set('f.yaml', text, parseYamlText('f.yaml', text));
    expect(cache.get('f.yaml', text)).toBeUndefined();
  });

  it("is off with AGENTFORM_PARSE_CACHE=off, and lives in the project's .agentform/ otherwise", () => {
    expect(openParseCache('/p', { AGENTFORM_PARSE_CACHE: 'off' })).toBeUndefined();
    expect(parseCacheDir({}, '/p')).toBe(join('/p', '.agentform', 'cache', 'parse'));
    expect(parseCacheDir({ AGENTFORM_PARSE_CACHE: '/elsewhere' }, '/p')).toBe('/elsewhere');
  });

  it('an unwritable cache only costs time', () => {
    writeFileSync(join(dir, 'file'), '');
    const broken = openParseCache(dir, { AGENTFORM_PARSE_CACHE: join(dir, 'file', 'cache') })!;
    broken.set('agents.yaml', AGENT, parseYamlText('agents.yaml', AGENT));
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
      // The root file and the resource file.
      expect(readdirSync(join(dir, 'project-cache'))).toHaveLength(2);
      expect(await read()).toEqual(first);
    } finally {
      if (previous === undefined) delete process.env.AGENTFORM_PARSE_CACHE;
      else process.env.AGENTFORM_PARSE_CACHE = previous;
    }
  });
});
