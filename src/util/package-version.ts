// The version of an installed package, as `require(name + '/package.json')` from a given file
// would find it, without going through require: creating a require function and resolving through
// the package's exports map is slow for the first such lookup of a run; reading the file is cheap.
// (The parse cache and the precompiled validators key on yaml's and ajv's versions on every run.)
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folders Node searches for a bare `require(name)` from a file in `dir`, nearest first (as Module._nodeModulePaths). */
export function nodeModulesFolders(dir: string): string[] {
  const folders: string[] = [];
  for (let current = dir; ; current = dirname(current)) {
    if (basename(current) !== 'node_modules') folders.push(join(current, 'node_modules'));
    if (dirname(current) === current) return folders;
  }
}

export function installedVersion(name: string, fromModuleUrl: string): string {
  const from = fileURLToPath(fromModuleUrl);
  for (const folder of nodeModulesFolders(dirname(from))) {
    let text: string;
    try {
      text = readFileSync(join(folder, name, 'package.json'), 'utf8');
    } catch {
      continue;
    }
    const version = (JSON.parse(text) as { version?: unknown }).version;
    if (typeof version === 'string') return version;
    break;
  }
  // Anywhere else require looks (NODE_PATH, global folders): let it find the package.
  return (createRequire(fromModuleUrl)(`${name}/package.json`) as { version: string }).version;
}
