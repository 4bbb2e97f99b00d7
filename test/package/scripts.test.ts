// package.json's scripts and engines (issue 43). The first `npx agentform` in a clone ran `prepare`, a
// full rebuild (~40 s) that rewrote dist/ under whatever ran it meanwhile (a test suite broke): npm
// runs prepare and the install scripts when a directory is installed, as npx does with this one.
// So no such script builds: the quickstart builds, and packing (explicit) does.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/cli.js';

interface PackageJson {
  scripts: Record<string, string>;
  engines: { node: string };
}

const packageJson = async (): Promise<PackageJson> => JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as PackageJson;

/** The lifecycle scripts npm runs when it installs this directory (npm ci here, npx agentform, a file: dependency). */
const ON_INSTALL = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare'];

describe('package.json', () => {
  it('runs no build when the clone is installed or run through npx; the quickstart and npm pack build', async () => {
    const { scripts } = await packageJson();
    expect(ON_INSTALL.filter((name) => scripts[name] !== undefined)).toEqual([]);
    expect(scripts.quickstart).toMatch(/^npm run build && /);
    expect(scripts.prepack).toBe('npm run build');
  });

  it('declares the Node lines it runs on: 20, 22 and 24', async () => {
    const { engines } = await packageJson();
    expect(engines.node).toBe('^20.18.1 || ^22 || >=24');
  });
});
