// node:fs's promise API, made on first use: a command that writes no file never loads it.
import * as fs from 'node:fs';

let api: typeof fs.promises | undefined;

export function fsPromises(): typeof fs.promises {
  api ??= fs.promises;
  return api;
}
