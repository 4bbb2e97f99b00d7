// loadCommonJs uses a code cache only for the very text it was made from; any other cache costs a compile, never wrong code.
// Loads that should read a cache run in a fresh process (the built module): within one process V8
// reuses what it compiled before and never looks at the cache.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CODE_CACHE_SUFFIX, loadCommonJs, writeCodeCache } from '../../src/startup/bundle-code-cache.js';

let dir: string;
let file: string;
const source = (answer: number) =>
  `"use strict";\nconst helper = require('node:path');\nexports.answer = () => ${answer};\nexports.sep = helper.sep;\nexports.file = __filename;\n`;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'code-cache-'));
  file = join(dir, 'generated.cjs');
  writeFileSync(file, source(41));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type Generated = { answer(): number; sep: string; file: string };

const BUILT = join(import.meta.dirname, '..', '..', 'dist', 'src', 'startup', 'bundle-code-cache.js');
/** loadCommonJs(file) in a new node process: whether the cache was used, and what the file computes. */
function loadInFreshProcess(path: string): { used: boolean | null; answer: number } {
  const script = `import { loadCommonJs } from ${JSON.stringify(BUILT)}; const l = loadCommonJs(${JSON.stringify(path)}); console.log(JSON.stringify({ used: l.cacheUsed ?? null, answer: l.exports.answer() }));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as { used: boolean | null; answer: number };
}

describe('loadCommonJs', () => {
  it('loads a CommonJS file as require does, without a cache', () => {
    const loaded = loadCommonJs(file);
    const exports = loaded.exports as Generated;
    expect([exports.answer(), exports.sep, exports.file, loaded.cacheUsed]).toEqual([41, '/', file, undefined]);
  });

  it('uses the cache written for the same text', async () => {
    writeCodeCache(loadCommonJs(file));
    expect(loadInFreshProcess(file)).toEqual({ used: true, answer: 41 });
  });

  it('ignores a cache made from other text of the same length (V8 would accept it)', async () => {
    writeCodeCache(loadCommonJs(file));
    writeFileSync(file, source(42));
    expect(loadInFreshProcess(file)).toEqual({ used: null, answer: 42 });
  });

  it('compiles the file when V8 rejects a damaged cache', async () => {
    writeCodeCache(loadCommonJs(file));
    const cache = readFileSync(file + CODE_CACHE_SUFFIX);
    // After the header (8 bytes) and the copy of the source: V8's own header.
    const v8Data = 8 + readFileSync(file).length;
    cache.fill(7, v8Data + 8, v8Data + 48);
    writeFileSync(file + CODE_CACHE_SUFFIX, cache);
    expect(loadInFreshProcess(file)).toEqual({ used: false, answer: 41 });
  });

  it('ignores a cache whose copy of the source differs, or that is of an earlier format', async () => {
    writeCodeCache(loadCommonJs(file));
    const cache = readFileSync(file + CODE_CACHE_SUFFIX);
    const changedCopy = Buffer.from(cache);
    changedCopy[8 + readFileSync(file).indexOf('41')] = '2'.charCodeAt(0);
    writeFileSync(file + CODE_CACHE_SUFFIX, changedCopy);
    expect(loadInFreshProcess(file)).toEqual({ used: null, answer: 41 });
    // The format before: the source's SHA-256, then V8's data.
    writeFileSync(
      file + CODE_CACHE_SUFFIX,
      Buffer.concat([createHash('sha256').update(readFileSync(file)).digest(), cache.subarray(8 + readFileSync(file).length)]),
    );
    expect(loadInFreshProcess(file)).toEqual({ used: null, answer: 41 });
  });

  it('ignores a truncated cache file', () => {
    writeFileSync(file + CODE_CACHE_SUFFIX, Buffer.alloc(10));
    expect(loadCommonJs(file).cacheUsed).toBeUndefined();
  });
});

describe('useBundleCodeCache', () => {
  const BUNDLE_CACHE = `import { useBundleCodeCache } from ${JSON.stringify(BUILT)};`;
  /** Requires main.js of the "bundle" in a new process (writing caches with `write`): its answer and the loader's counts. */
  function runBundle(bundle: string, write: boolean): { answer: number; stats: { fromCache: number; compiled: number; rejected: number } } {
    const script = `${BUNDLE_CACHE} import { createRequire } from 'node:module'; const stats = useBundleCodeCache(${JSON.stringify(bundle)}, { write: ${write} }); const answer = createRequire(import.meta.url)(${JSON.stringify(join(bundle, 'main.js'))}).answer(); console.log(JSON.stringify({ answer, stats }));`;
    return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as ReturnType<typeof runBundle>;
  }
  let bundle: string;
  beforeEach(() => {
    bundle = join(dir, 'bundle');
    execFileSync('mkdir', [bundle]);
    writeFileSync(join(bundle, 'package.json'), '{ "type": "commonjs" }');
    writeFileSync(join(bundle, 'main.js'), '#!/usr/bin/env node\nconst part = require("./part.js");\nexports.answer = () => part.value() + 1;\n');
    writeFileSync(join(bundle, 'part.js'), 'exports.value = () => 41;\n');
  });

  // vm.Script gives compiled code no loader for import(): a file without a cache is Node's to compile.
  it('leaves a file without a cache to Node, so that its import() works', () => {
    writeFileSync(join(bundle, 'part.js'), 'exports.value = () => 41;\nexports.later = () => import("node:os").then((os) => typeof os.cpus);\n');
    const script = `${BUNDLE_CACHE} import { createRequire } from 'node:module'; const stats = useBundleCodeCache(${JSON.stringify(bundle)}, { write: false }); const part = createRequire(import.meta.url)(${JSON.stringify(join(bundle, 'part.js'))}); console.log(JSON.stringify({ later: await part.later(), stats }));`;
    const result = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as unknown;
    expect(result).toEqual({ later: 'function', stats: { fromCache: 0, compiled: 1, rejected: 0 } });
  });

  it('loads the bundle’s files as require does, compiled without caches at first', () => {
    expect(runBundle(bundle, false)).toEqual({ answer: 42, stats: { fromCache: 0, compiled: 2, rejected: 0 } });
  });

  it('writes each loaded file’s cache at exit, which the next process uses', () => {
    runBundle(bundle, true);
    expect(runBundle(bundle, false)).toEqual({ answer: 42, stats: { fromCache: 2, compiled: 0, rejected: 0 } });
  });

  it('compiles a file changed since its cache was made, and still uses the others', () => {
    runBundle(bundle, true);
    writeFileSync(join(bundle, 'part.js'), 'exports.value = () => 51;\n');
    expect(runBundle(bundle, false)).toEqual({ answer: 52, stats: { fromCache: 1, compiled: 1, rejected: 0 } });
  });

  it('exits as usual when a cache cannot be written, leaving no temporary file', () => {
    mkdirSync(join(bundle, `part.js${CODE_CACHE_SUFFIX}`, 'in-the-way'), { recursive: true });
    expect(runBundle(bundle, true).answer).toBe(42);
    expect(readdirSync(bundle).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(runBundle(bundle, false).stats).toEqual({ fromCache: 1, compiled: 1, rejected: 0 });
  });

  /** `expression` evaluated in a new process after useBundleCodeCache, with `load(name)` requiring a file of the bundle. */
  function inBundle(write: boolean, expression: string): unknown {
    const script = `${BUNDLE_CACHE} import { createRequire } from 'node:module'; const stats = useBundleCodeCache(${JSON.stringify(bundle)}, { write: ${write} }); const load = (name) => createRequire(import.meta.url)(${JSON.stringify(bundle)} + '/' + name); console.log(JSON.stringify(${expression}));`;
    return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as unknown;
  }

  // A chunk's require of another chunk skips Node's resolution, not its module registry.
  it('registers the chunks it loads in require.cache, once each, as Node would', () => {
    writeFileSync(join(bundle, 'other.js'), 'exports.part = require("./part.js");\n');
    runBundle(bundle, true);
    inBundle(true, `load('other.js').part.value()`);
    const cached = `Object.keys(createRequire(import.meta.url).cache).filter((file) => file.startsWith(${JSON.stringify(bundle)})).sort()`;
    expect(inBundle(false, `[load('main.js').answer(), load('other.js').part === load('part.js'), ${cached}, stats]`)).toEqual([
      42,
      true,
      [join(bundle, 'main.js'), join(bundle, 'other.js'), join(bundle, 'part.js')],
      { fromCache: 3, compiled: 0, rejected: 0 },
    ]);
  });

  it('gives a cycle between chunks the exports so far, as Node does', () => {
    writeFileSync(join(bundle, 'a.js'), 'exports.early = "a";\nconst b = require("./b.js");\nexports.seenByB = b.sawEarly;\n');
    writeFileSync(join(bundle, 'b.js'), 'const a = require("./a.js");\nexports.sawEarly = a.early;\n');
    inBundle(true, `load('a.js').seenByB`);
    expect(inBundle(false, `[load('a.js').seenByB, stats.fromCache]`)).toEqual(['a', 2]);
  });

  it('runs a chunk that threw again when it is required again', () => {
    writeFileSync(
      join(bundle, 'flaky.js'),
      'globalThis.runs = (globalThis.runs ?? 0) + 1;\nif (globalThis.runs === 1) throw new Error("first run");\nexports.runs = globalThis.runs;\n',
    );
    writeFileSync(join(bundle, 'caller.js'), 'exports.flaky = () => require("./flaky.js");\n');
    inBundle(true, `(() => { const { flaky } = load('caller.js'); try { flaky(); } catch {} return flaky().runs; })()`);
    expect(
      inBundle(
        false,
        `(() => { const { flaky } = load('caller.js'); let error; try { flaky(); } catch (e) { error = e.message; } return [error, flaky().runs, stats.fromCache]; })()`,
      ),
    ).toEqual(['first run', 2, 3]); // caller.js once, flaky.js twice
  });

  it('leaves a chunk without a cache that another chunk requires to Node, so that its import() works', () => {
    writeFileSync(join(bundle, 'part.js'), 'exports.value = () => 41;\nexports.later = () => import("node:os").then((os) => typeof os.cpus);\n');
    writeFileSync(join(bundle, 'caller.js'), 'exports.part = require("./part.js");\n');
    inBundle(true, `load('caller.js').part.value()`);
    rmSync(join(bundle, `part.js${CODE_CACHE_SUFFIX}`));
    const script = `${BUNDLE_CACHE} import { createRequire } from 'node:module'; const stats = useBundleCodeCache(${JSON.stringify(bundle)}, { write: false }); const caller = createRequire(import.meta.url)(${JSON.stringify(join(bundle, 'caller.js'))}); console.log(JSON.stringify({ later: await caller.part.later(), stats }));`;
    const result = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as unknown;
    expect(result).toEqual({ later: 'function', stats: { fromCache: 1, compiled: 1, rejected: 0 } });
  });

  it('gives chunks a require with resolve and cache, as Node’s', () => {
    writeFileSync(
      join(bundle, 'part.js'),
      'exports.value = () => 41;\nexports.where = require.resolve("./main.js");\nexports.cached = Object.keys(require.cache).length > 0;\n',
    );
    runBundle(bundle, true);
    expect(inBundle(false, `[load('part.js').where, load('part.js').cached, stats.fromCache]`)).toEqual([join(bundle, 'main.js'), true, 1]);
  });

  it('uses the caches of a bundle reached through a symbolic link', () => {
    runBundle(bundle, true);
    const link = join(dir, 'linked');
    symlinkSync(bundle, link);
    const script = `${BUNDLE_CACHE} import { createRequire } from 'node:module'; const stats = useBundleCodeCache(${JSON.stringify(link)}, { write: false }); const answer = createRequire(import.meta.url)(${JSON.stringify(join(link, 'main.js'))}).answer(); console.log(JSON.stringify({ answer, stats }));`;
    expect(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }))).toEqual({
      answer: 42,
      stats: { fromCache: 2, compiled: 0, rejected: 0 },
    });
  });

  it('leaves files outside the bundle’s folder to Node', () => {
    writeFileSync(join(dir, 'outside.js'), 'exports.value = () => 41;\n');
    writeFileSync(join(bundle, 'part.js'), 'module.exports = require("../outside.js");\n');
    runBundle(bundle, true);
    expect(() => readFileSync(join(dir, 'outside.js') + CODE_CACHE_SUFFIX)).toThrow();
    expect(runBundle(bundle, false).stats).toEqual({ fromCache: 2, compiled: 0, rejected: 0 });
  });
});
