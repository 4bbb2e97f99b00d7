// The bundle's chunks compiled through V8 code caches that the build trained and ships beside them,
// for a Node without a compile cache of its own (module.enableCompileCache, Node >= 22.1: index.ts).
// Node compiles CommonJS without a cache, and every run compiled the same chunks again.
//
// V8 accepts cached data by the source's length, V8's version and its flags, not by the source's
// content, so each cache file starts with the very bytes it was made from, and is used only when the
// file holds those bytes now. A cache made by another Node or with other V8 flags is rejected by V8
// itself, and the file is compiled as if there were none.
import { readFileSync, realpathSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { writeFileAtomicSync } from '../util/atomic-write.js';
import type { RunKind } from './v8-settings.js';
import type { NodeModuleInternals } from './node-module-internals.js';

/** A file's cache is this file beside it: one per kind of run, each made under its V8 settings (v8-settings.ts). */
export const CODE_CACHE_SUFFIX = '.v8cache';

export function codeCacheSuffix(kind: RunKind): string {
  return kind === 'server' ? `.server${CODE_CACHE_SUFFIX}` : CODE_CACHE_SUFFIX;
}

// Process-wide, like the V8 flags it follows: set once at start-up, before any cache is read.
let activeSuffix = CODE_CACHE_SUFFIX;
// A cache file: MAGIC, the source's length in bytes (u32, little-endian), the source, V8's data.
const MAGIC = Buffer.from('afc2', 'latin1');
const HEADER_BYTES = MAGIC.length + 4;

export interface LoadedCommonJs {
  path: string;
  exports: unknown;
  /** Whether V8 used the cache: undefined when there was none for this text. */
  cacheUsed: boolean | undefined;
  /** The compiled script, whose cache writeCodeCache makes (after the code has run, so that it holds the functions compiled meanwhile). */
  script: Script;
}

/** `path`'s cache file, if there is one. */
function readCacheFile(path: string): Buffer | undefined {
  try {
    return readFileSync(path + activeSuffix);
  } catch {
    return undefined;
  }
}

/** V8's data in a cache file, if the file was made from exactly `source`. */
function cachedDataIn(file: Buffer, source: Buffer): Buffer | undefined {
  if (file.length <= HEADER_BYTES || !file.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const sourceEnd = HEADER_BYTES + file.readUInt32LE(MAGIC.length);
  if (sourceEnd >= file.length || !file.subarray(HEADER_BYTES, sourceEnd).equals(source)) return undefined;
  return file.subarray(sourceEnd);
}

function cacheFile(source: Buffer, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32LE(source.length);
  return Buffer.concat([MAGIC, length, source, data]);
}

type CommonJsWrapper = (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;

/** Compiles CommonJS source as Node's loader would wrap it, with V8's cached data for it if given. */
function compileCommonJs(
  path: string,
  source: string,
  cachedData: Buffer | undefined,
): { define: CommonJsWrapper; script: Script; cacheUsed: boolean | undefined } {
  // A `#!` line is valid only as a script's very first characters, which the wrapper is.
  const body = source.startsWith('#!') ? `//${source}` : source;
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${body}\n})`, { filename: path, cachedData });
  return { define: script.runInThisContext() as CommonJsWrapper, script, cacheUsed: cachedData === undefined ? undefined : !script.cachedDataRejected };
}

/** `require(path)` for a CommonJS file, compiled from its code cache when there is a matching one. */
export function loadCommonJs(path: string): LoadedCommonJs {
  const bytes = readFileSync(path);
  const cache = readCacheFile(path);
  const { define, script, cacheUsed } = compileCommonJs(path, bytes.toString('utf8'), cache && cachedDataIn(cache, bytes));
  const module = { exports: {} as unknown };
  define(module.exports, createRequire(path), module, path, dirname(path));
  return { path, exports: module.exports, cacheUsed, script };
}

/**
 * Writes the code cache of a loaded file, for the next process with the same Node and V8 flags.
 * `source`: the bytes the script was compiled from, when the caller kept them; otherwise the file is
 * read again.
 */
export function writeCodeCache(loaded: Pick<LoadedCommonJs, 'path' | 'script'> & { source?: Buffer }): void {
  // Synchronous: also called as the process exits.
  writeFileAtomicSync(loaded.path + activeSuffix, cacheFile(loaded.source ?? readFileSync(loaded.path), loaded.script.createCachedData()));
}

/** What the bundle's loader did in this process (`--debug` prints it). */
export interface BundleCacheStats {
  fromCache: number;
  compiled: number;
  rejected: number;
}

const nodeModules = Module as unknown as NodeModuleInternals;
const loaders = nodeModules._extensions;

/** `require("./<name>.js")` as the bundler writes it for another chunk: the bundle's folder is flat. */
const isChunkRequest = (id: string): boolean => id.startsWith('./') && id.endsWith('.js') && id.indexOf('/', 2) === -1;

/**
 * From now on, `require` compiles the JavaScript files directly in `dir` (the CLI bundle's chunks,
 * and the precompiled schema validators beside them) through their code caches. Other files load as before.
 * With `write`, each chunk's cache is (re)written when the process exits, holding every function
 * compiled by then: the build runs a few commands this way (scripts/build.mjs).
 *
 * A chunk's `require` of another chunk does not go through Node's resolution either: for each file
 * it stats and resolves the real path, and the Module it makes works out its node_modules search
 * paths, twice with createRequire, for every chunk.
 * The chunk is read, compiled and registered in require.cache here; anything else a chunk requires
 * (built-ins, packages) is Node's, as from any file in the folder.
 */
export function useBundleCodeCache(bundleDir: string, options: { write: boolean; suffix?: string }): BundleCacheStats {
  activeSuffix = options.suffix ?? CODE_CACHE_SUFFIX;
  const stats: BundleCacheStats = { fromCache: 0, compiled: 0, rejected: 0 };
  const plainJs = loaders['.js'];
  if (!plainJs) return stats;
  // Node names modules by their real path, and so must the folder they are compared with.
  const dir = realpathSync(bundleDir);
  // With the bytes each was compiled from: the file may change before the process exits.
  const loaded: Array<Pick<LoadedCommonJs, 'path' | 'script'> & { source: Buffer }> = [];
  const nodeRequire = createRequire(join(dir, 'index.js'));
  const searchPaths = nodeModules._nodeModulePaths(dir);

  /** Runs a chunk as `module` from its code cache; false, having run nothing, when it has none for its text (Node is to compile it). */
  const runChunk = (module: NodeJS.Module, filename: string): boolean => {
    // The cache first: a chunk without one is not read here as well as by Node. The build keeps
    // none for a chunk that imports a module dynamically: vm.Script gives code no loader for
    // import() (scripts/build.mjs).
    const cache = readCacheFile(filename);
    if (cache === undefined && !options.write) return false;
    const bytes = readFileSync(filename);
    const cachedData = cache && cachedDataIn(cache, bytes);
    if (cachedData === undefined && !options.write) return false;
    const { define, script, cacheUsed } = compileCommonJs(filename, bytes.toString('utf8'), cachedData);
    if (cacheUsed) stats.fromCache += 1;
    else if (cacheUsed === false) stats.rejected += 1;
    else stats.compiled += 1;
    if (options.write) loaded.push({ path: filename, script, source: bytes });
    define(module.exports, requireInBundle, module, filename, dir);
    return true;
  };

  const requireChunk = (filename: string): unknown => {
    const known = nodeModules._cache[filename];
    if (known) return known.exports;
    const module = new nodeModules(filename);
    module.filename = filename;
    module.paths = searchPaths;
    // Registered before it runs, as Node does: a cycle between chunks sees its exports so far.
    nodeModules._cache[filename] = module;
    try {
      if (!runChunk(module, filename)) {
        stats.compiled += 1;
        // Node's own loader for the .js file: its code gets Node's require, and import() works.
        plainJs(module, filename);
      }
    } catch (error) {
      delete nodeModules._cache[filename];
      throw error;
    }
    module.loaded = true;
    return module.exports;
  };

  const requireInBundle: NodeJS.Require = Object.assign((id: string): unknown => (isChunkRequest(id) ? requireChunk(join(dir, id)) : nodeRequire(id)), {
    resolve: nodeRequire.resolve,
    cache: nodeRequire.cache,
    main: nodeRequire.main,
    extensions: nodeRequire.extensions,
  });

  // Files Node itself loads from the folder (the entry's import() of main.js, a chunk required from outside the bundle).
  loaders['.js'] = (module, filename) => {
    if (dirname(filename) !== dir) return plainJs(module, filename);
    if (runChunk(module, filename)) return;
    stats.compiled += 1;
    plainJs(module, filename);
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
