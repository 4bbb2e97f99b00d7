// Loads a large generated CommonJS file (the precompiled schema validators, ~0.5 MB of code) through
// V8's code cache when the build left one beside it: compiling the file was the largest single cost
// of a small plan (~17 ms, against ~9 ms from the cache).
//
// V8 accepts cached data by the source's length, V8's version and its flags, not by the source's
// content, so each cache file starts with the SHA-256 of the text it was made from, and is used only
// for that text. A cache made by another Node or with other V8 flags is rejected by V8 itself, and
// the file is compiled as if there were none.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';
import { writeFileAtomic } from './atomic-write.js';

export const CODE_CACHE_SUFFIX = '.v8cache';
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
    file = readFileSync(path + CODE_CACHE_SUFFIX);
  } catch {
    return undefined;
  }
  if (file.length <= DIGEST_BYTES || !file.subarray(0, DIGEST_BYTES).equals(digest(source))) return undefined;
  return file.subarray(DIGEST_BYTES);
}

/** `require(path)` for a CommonJS file, compiled from its code cache when there is a matching one. */
export function loadCommonJs(path: string): LoadedCommonJs {
  const source = readFileSync(path, 'utf8');
  const cachedData = cachedDataFor(path, source);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: path, cachedData });
  const module = { exports: {} as unknown };
  const define = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;
  define(module.exports, createRequire(path), module, path, dirname(path));
  return { path, exports: module.exports, cacheUsed: cachedData === undefined ? undefined : !script.cachedDataRejected, script };
}

/** Writes the code cache of a file loaded by loadCommonJs, for the next process with the same Node and V8 flags. */
export async function writeCodeCache(loaded: LoadedCommonJs): Promise<void> {
  const source = readFileSync(loaded.path, 'utf8');
  await writeFileAtomic(loaded.path + CODE_CACHE_SUFFIX, Buffer.concat([digest(source), loaded.script.createCachedData()]));
}
