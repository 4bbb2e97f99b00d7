// The package as users get it: `npm pack`, installed into an empty prefix, runs the quickstart from
// the installed copy. npm would compile better-sqlite3 from source here (no prebuilt binary can be
// downloaded on this network): about 100 s of CPU that proves nothing about our package. So install
// scripts are skipped and the native module this checkout already built is reused when the versions
// match; when they do not, it is rebuilt in place as npm would have.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, withoutLocalState } from '../helpers/cli.js';

const run = promisify(execFile);
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const INSTALL_TIMEOUT_MS = 8 * 60_000;

interface PackedFile {
  path: string;
}

const SQLITE = join('node_modules', 'better-sqlite3');
const SQLITE_BINDING = join(SQLITE, 'build', 'Release', 'better_sqlite3.node');

async function packageVersion(dir: string): Promise<string> {
  return (JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** What better-sqlite3's skipped install script would have produced. */
async function provideSqliteBinding(installed: string): Promise<void> {
  if ((await packageVersion(join(installed, SQLITE))) === (await packageVersion(join(REPO, SQLITE)))) {
    await cp(join(REPO, SQLITE_BINDING), join(installed, SQLITE_BINDING));
    return;
  }
  await run(NPM, ['rebuild', 'better-sqlite3'], { cwd: installed, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
}

describe('the packed tarball', () => {
  let work: string;
  let tarball: string;
  let bin: string;
  let files: string[];

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'agentform-pack-'));
    // --ignore-scripts: dist/ is already built by the test setup; packing must not rebuild it under other tests.
    const { stdout } = await run(NPM, ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: REPO, maxBuffer: 16 * 1024 * 1024 });
    const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: PackedFile[] }>;
    tarball = join(work, packed!.filename);
    files = packed!.files.map((file) => file.path);
    const prefix = join(work, 'prefix');
    // An empty prefix, dependencies from the registry (or npm's cache), no TypeScript compiler
    // involved; better-sqlite3 beside it, as the README says for the local control plane (an
    // optional peer dependency: npm would not install it with agentform alone).
    await run(
      NPM,
      ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball, 'better-sqlite3@^12.11.1'],
      {
        cwd: work,
        timeout: INSTALL_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    await provideSqliteBinding(join(prefix, 'lib'));
    bin = join(prefix, 'bin', 'agentform');
  }, INSTALL_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('holds the bundled CLI and the schemas, and no tests, fixtures, sources, unbundled modules or benchmarks', () => {
    expect(files).toContain('dist/cli/agentform.js');
    expect(files).toContain('schemas/agent.schema.json');
    expect(files).toContain('package.json');
    // Of examples/, only the CI recipes that `agentform init --ci` copies.
    const unexpected = files.filter(
      (file) =>
        (/^(test|bench|src|examples|dist\/src|dist\/test|dist\/bench)\//.test(file) && !/^examples\/(github-actions\/\.github|gitlab-ci)\//.test(file)) ||
        file.endsWith('.ts'),
    );
    expect(unexpected).toEqual([]);
  });

  it('installs without a TypeScript compiler and runs --version, validate and the quickstart', async () => {
    const installed = await readdir(join(work, 'prefix', 'lib', 'node_modules'));
    expect(installed).toEqual(['agentform', 'better-sqlite3']);
    const modules = await readdir(join(work, 'prefix', 'lib', 'node_modules', 'agentform', 'node_modules'));
    expect(modules).not.toContain('typescript');

    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' };
    const version = await run(bin, ['--version'], { env });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);

    const project = join(work, 'quickstart');
    await cp(join(REPO, 'examples', 'quickstart'), project, { recursive: true, filter: withoutLocalState });
    const validate = await run(bin, ['validate'], { cwd: project, env });
    expect(validate.stdout).toContain('valid');
    const apply = await run(bin, ['apply', '--auto-approve'], { cwd: project, env });
    expect(apply.stdout).toContain('Apply complete!');
    const plan = await run(bin, ['plan', '--detailed-exitcode'], { cwd: project, env });
    expect(plan.stdout).toContain('No changes');
  }, 120_000);
});
