// node:fs's promise API, made on first use (a command that writes no file never loads it). Node
// makes it through a getter on node:fs, not a require, so the CLI's loader hook (v8-flags.ts) does
// not see it: under the run's V8 flags, Node compiled its eight modules from source (~3 ms, against
// ~1 ms from its code cache) on the first file a plan --out, an apply or init wrote.
import * as fs from 'node:fs';
import { underV8Defaults } from './v8-flags.js';

let api: typeof fs.promises | undefined;

export function fsPromises(): typeof fs.promises {
  api ??= underV8Defaults(() => fs.promises);
  return api;
}
