// installedVersion finds a package as require would from the same file, without require.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installedVersion, nodeModulesFolders } from '../../src/util/package-version.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'package-version-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function install(at: string, name: string, version: string): void {
  mkdirSync(join(at, 'node_modules', name), { recursive: true });
  writeFileSync(
    join(at, 'node_modules', name, 'package.json'),
    JSON.stringify({ name, version, exports: { '.': './index.js', './package.json': './package.json' } }),
  );
  writeFileSync(join(at, 'node_modules', name, 'index.js'), 'module.exports = {};');
}

describe('nodeModulesFolders', () => {
  it.each([
    ['/a/b', ['/a/b/node_modules', '/a/node_modules', '/node_modules']],
    [
      '/x/node_modules/agentform/dist/cli',
      [
        '/x/node_modules/agentform/dist/cli/node_modules',
        '/x/node_modules/agentform/dist/node_modules',
        '/x/node_modules/agentform/node_modules',
        '/x/node_modules',
        '/node_modules',
      ],
    ],
  ])('from %s, as Node’s own list', (dir, expected) => {
    expect(nodeModulesFolders(dir)).toEqual(expected);
    expect(nodeModulesFolders(dir)).toEqual(
      (createRequire(import.meta.url)('node:module') as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dir),
    );
  });
});

describe('installedVersion', () => {
  it.each([
    ['the nearest install wins', ['', 'pkg/dist'], 'pkg/dist/cli'],
    ['an install further up', [''], 'pkg/dist/cli'],
    ['inside a node_modules tree (a dependency of a dependency)', ['', 'node_modules/agentform'], 'node_modules/agentform/dist/cli'],
  ])('finds what require finds: %s', (_, installs, from) => {
    installs.forEach((at, index) => install(join(root, at), 'yaml', `2.${index}.0`));
    mkdirSync(join(root, from), { recursive: true });
    const file = pathToFileURL(join(root, from, 'chunk.js')).href;
    const required = (createRequire(file)('yaml/package.json') as { version: string }).version;
    expect(installedVersion('yaml', file)).toBe(required);
  });

  it('asks require when no node_modules folder has it', () => {
    expect(() => installedVersion('no-such-package-here', pathToFileURL(join(root, 'chunk.js')).href)).toThrow(/Cannot find module/);
  });
});
