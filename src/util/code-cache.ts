// Loads a large generated CommonJS file (the precompiled schema validators, ~0.5 MB of code) through
// V8's code cache when the build left one beside it: compiling the file was the largest single cost
// of a small plan (~17 ms, against ~9 ms from the cache).
//
// V8 accepts cached data by the source's length, V8's version and its flags, not by the source's
// content, so each cache file starts with the SHA-256 of the text it was made from, and is used only
// for that text. A cache made by another Node or with other V8 flags is rejected by V8 itself, and
// the file is compiled as if there were none. The CLI runs under one of three sets of flags
// (v8-mode.ts), each with its own cache files: `<file>.v8cache` (full), `<file>.lean.v8cache` and
// `<file>.parse.v8cache`; `agentform server` runs under V8's defaults, with `<file>.server.v8cache`.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';
import { writeFileAtomicSync } from './atomic-write.js';
import { V8_MODES, type V8Mode } from './v8-mode.js';

/** The cache files of the full mode (and of any process that did not choose). */
export const CODE_CACHE_SUFFIX = '.v8cache';

/** A set of V8 flags that code caches are made and used under: a CLI mode, or the server's (V8's defaults). */
export type CodeCacheSet = V8Mode | 'server';
/** Every set the build makes caches for (scripts/build.mjs). */
export const CODE_CACHE_SETS: readonly CodeCacheSet[] = [...V8_MODES, 'server'];

export function codeCacheSuffix(set: CodeCacheSet): string {
  return set === 'full' ? CODE_CACHE_SUFFIX : `.${set}${CODE_CACHE_SUFFIX}`;
}

// Process-wide, like the V8 flags it follows: set once at start-up (bin.ts), before any cache is read.
let activeSuffix = CODE_CACHE_SUFFIX;

/** From now on, caches are read and written for the flags of `set` (which the caller has applied). */
export function useCodeCachesOf(set: CodeCacheSet): void {
  activeSuffix = codeCacheSuffix(set);
}
const DIGEST_BYTES = 32;

export interface LoadedCommonJs {
  path: string;
  exports: unknown;
  /** Whether V8 used the cache: undefined when there was none for this text. */
  cacheUsed: boolean | undefined;
  /** The compiled script, whose cache writeCodeCache makes (after the code has run, so that it holds the functions compiled meanwhile). */
  script: Script;
}

function digest(source: string): Buffer {
  return createHash('sha256').update(source).digest();
}

function cachedDataFor(path: string, source: string): Buffer | undefined {
  let file: Buffer;
  try {
    file = readFileSync(path + activeSuffix);
  } catch {
    return undefined;
  }
  if (file.length <= DIGEST_BYTES || !file.subarray(0, DIGEST_BYTES).equals(digest(source))) return undefined;
  return file.subarray(DIGEST_BYTES);
}

type CommonJsWrapper = (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;

/** Compiles CommonJS source as Node's loader would wrap it, with V8's cached data for it if given. */
function compileCommonJs(path: string, source: string, cachedData: Buffer | undefined): { define: CommonJsWrapper; script: Script; cacheUsed: boolean | undefined } {
  // A `#!` line is valid only as a script's very first characters, which the wrapper is.
  const body = source.startsWith('#!') ? `//${source}` : source;
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${body}\n})`, { filename: path, cachedData });
  return { define: script.runInThisContext() as CommonJsWrapper, script, cacheUsed: cachedData === undefined ? undefined : !script.cachedDataRejected };
}

/** `require(path)` for a CommonJS file, compiled from its code cache when there is a matching one. */
export function loadCommonJs(path: string): LoadedCommonJs {
  const source = readFileSync(path, 'utf8');
  const { define, script, cacheUsed } = compileCommonJs(path, source, cachedDataFor(path, source));
  const module = { exports: {} as unknown };
  define(module.exports, createRequire(path), module, path, dirname(path));
  return { path, exports: module.exports, cacheUsed, script };
}

/** Writes the code cache of a file loaded by loadCommonJs, for the next process with the same Node and V8 flags. */
export function writeCodeCache(loaded: Pick<LoadedCommonJs, 'path' | 'script'>): void {
  // Synchronous: also called as the process exits.
  writeFileAtomicSync(loaded.path + activeSuffix, Buffer.concat([digest(readFileSync(loaded.path, 'utf8')), loaded.script.createCachedData()]));
}

/** What the bundle's loader did in this process (`--debug` prints it). */
export interface BundleCacheStats {
  fromCache: number;
  compiled: number;
  rejected: number;
}

type ModuleLoader = (module: NodeJS.Module, filename: string) => void;
/** Node's table of loaders by file extension: deprecated for users, still what `require` calls. */
const loaders = (Module as unknown as { _extensions: Record<string, ModuleLoader> })._extensions;

/**
 * From now on, `require` compiles the JavaScript files directly in `dir` (the CLI bundle's chunks)
 * through their code caches. Node compiles CommonJS without one, and every run compiled the same
 * ~0.5 MB of chunks and their functions again (~25 ms of a small plan). Other files load as before.
 * With `write`, each chunk's cache is (re)written when the process exits, holding every function
 * compiled by then: the build runs a few commands this way (scripts/build.mjs).
 */
export function useBundleCodeCache(dir: string, options: { write: boolean; set: CodeCacheSet }): BundleCacheStats {
  useCodeCachesOf(options.set);
  const stats: BundleCacheStats = { fromCache: 0, compiled: 0, rejected: 0 };
  const loaded: Array<Pick<LoadedCommonJs, 'path' | 'script'>> = [];
  const plainJs = loaders['.js'];
  loaders['.js'] = (module, filename) => {
    if (dirname(filename) !== dir || !plainJs) return plainJs?.(module, filename);
    const source = readFileSync(filename, 'utf8');
    const cachedData = cachedDataFor(filename, source);
    // Without a cache, Node compiles it as usual: vm.Script gives the code no loader for import(),
    // so the build keeps no cache for a chunk that imports a module dynamically (scripts/build.mjs).
    if (cachedData === undefined && !options.write) {
      stats.compiled += 1;
      return plainJs(module, filename);
    }
    const { define, script, cacheUsed } = compileCommonJs(filename, source, cachedData);
    if (cacheUsed) stats.fromCache += 1;
    else if (cacheUsed === false) stats.rejected += 1;
    else stats.compiled += 1;
    if (options.write) loaded.push({ path: filename, script });
    define(module.exports, createRequire(filename), module, filename, dir);
  };
  if (options.write) {
    process.on('exit', () => {
      for (const file of loaded) {
        try {
          writeCodeCache(file);
        } catch {
          // A folder the run cannot write to (an installed package): the caches are only a speed-up.
        }
      }
    });
  }
  return stats;
}
