// Issue 43: a CI job installs agentform in seconds, without a C++ toolchain. The packed tarball is
// installed as the CI recipes install it (better-sqlite3, the local control plane's native module,
// is an optional peer dependency: npm leaves it out) with nothing but node and npm on PATH, then validates, plans and
// applies a project against a control plane on 127.0.0.1. The local control plane itself, which
// needs better-sqlite3, says what to install.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { REPO, type CliResult } from '../helpers/cli.js';

const run = promisify(execFile);
const INSTALL_BOUND_MS = 60_000;
/** What a compiler-less CI image lacks, and what compiling better-sqlite3 would need. */
const TOOLCHAIN = ['cc', 'c++', 'gcc', 'g++', 'clang', 'make', 'python3', 'python'];
/** better-sqlite3 and what only it pulls in. */
const NATIVE_ONLY = ['better-sqlite3', 'bindings', 'prebuild-install'];
const MISSING_SQLITE = 'the local control plane (agentform server, url: local) needs better-sqlite3, which is not installed';

/** The npm that runs the tests, found on this process's PATH. */
async function npmCli(): Promise<string> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'npm');
    if (dir && existsSync(candidate)) return realpath(candidate);
  }
  throw new Error('npm is not on PATH');
}

/** Every package folder under `nodeModules`, nested ones included. */
async function packageNames(nodeModules: string): Promise<string[]> {
  const names: string[] = [];
  let entries: string[];
  try {
    entries = await readdir(nodeModules);
  } catch {
    return names;
  }
  for (const entry of entries) {
    if (entry.startsWith('.')) continue;
    const folders = entry.startsWith('@') ? (await readdir(join(nodeModules, entry))).map((name) => `${entry}/${name}`) : [entry];
    for (const name of folders) {
      names.push(name);
      names.push(...(await packageNames(join(nodeModules, name, 'node_modules'))));
    }
  }
  return names;
}

function runIn(bin: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const PROJECT_RESOURCES =
  'kind: Provider\nname: main\nspec:\n  type: openai\n  secret: ${env:INSTALL_TEST_SECRET:-sk-test}\n---\nkind: Agent\nname: helper\nspec:\n  model: {provider: main, model: gpt-4o}\n  system: You help.\n';

describe('installing the package for CI: no compiler, seconds', () => {
  let work: string;
  let pathOnly: string;
  let agentform: string;
  let installMs: number;
  let plane: LocalControlPlane | undefined;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'agentform-install-'));
    // --ignore-scripts: dist/ is already built by the test setup; packing must not rebuild it under other tests.
    const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: REPO, maxBuffer: 16 * 1024 * 1024 });
    const tarball = join(work, (JSON.parse(stdout) as Array<{ filename: string }>)[0]!.filename);
    // PATH: node and npm, nothing else (npm runs scripts with /bin/sh, as on any CI image).
    pathOnly = join(work, 'path');
    await mkdir(pathOnly);
    await symlink(process.execPath, join(pathOnly, 'node'));
    await symlink(await npmCli(), join(pathOnly, 'npm'));
    const env = {
      PATH: pathOnly,
      HOME: process.env.HOME ?? '',
      // The cache and registry this machine's npm uses, if set from outside: dependencies come from its cache.
      ...Object.fromEntries(
        ['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig'].flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
      ),
    };
    const prefix = join(work, 'prefix');
    // The CI recipes' install line (examples/*), with this machine's cache preferred.
    const started = performance.now();
    await run('npm', ['install', '--global', '--no-audit', '--no-fund', '--prefer-offline', '--prefix', prefix, tarball], {
      cwd: work,
      env,
      timeout: 5 * INSTALL_BOUND_MS,
      maxBuffer: 16 * 1024 * 1024,
    });
    installMs = performance.now() - started;
    console.log(`npm install --global of the tarball, no compiler on PATH: ${(installMs / 1000).toFixed(1)} s`);
    agentform = join(prefix, 'bin', 'agentform');
  }, 6 * INSTALL_BOUND_MS);

  afterAll(async () => {
    await plane?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const cliEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    PATH: pathOnly,
    HOME: process.env.HOME ?? '',
    NO_COLOR: '1',
    ...(process.env.AGENTFORM_PARSE_CACHE ? { AGENTFORM_PARSE_CACHE: process.env.AGENTFORM_PARSE_CACHE } : {}),
    ...extra,
  });

  it('runs with no C++ toolchain reachable and takes seconds, leaving better-sqlite3 out', async () => {
    for (const tool of TOOLCHAIN) {
      const found = await run('/bin/sh', ['-c', `command -v ${tool}`], { env: { PATH: pathOnly } }).then(
        ({ stdout }) => stdout.trim(),
        () => '',
      );
      expect(found, `${tool} is reachable`).toBe('');
    }
    expect(installMs).toBeLessThan(INSTALL_BOUND_MS);
    const installed = await packageNames(join(work, 'prefix', 'lib', 'node_modules'));
    expect(installed).toContain('agentform');
    expect(installed).toContain('yaml');
    expect(installed.filter((name) => NATIVE_ONLY.includes(name))).toEqual([]);
  });

  it('validates, plans and applies a project against a remote control plane', async () => {
    plane = await startLocalControlPlane({ dataDir: await mkdtemp(join(tmpdir(), 'agentform-install-plane-')), environments: ['dev'] });
    const project = join(work, 'remote');
    await mkdir(project);
    // The file's URL (loopback, nothing listens on port 9) is replaced by AGENTFORM_URL_DEV, as a CI job sets it.
    await writeFile(join(project, 'agentform.yaml'), 'version: 1\nenvironments:\n  dev:\n    url: http://127.0.0.1:9\n');
    await writeFile(join(project, 'resources.yaml'), PROJECT_RESOURCES);
    const env = cliEnv({ AGENTFORM_URL_DEV: plane.url, AGENTFORM_TOKEN_DEV: plane.tokens.dev });

    const validate = await runIn(agentform, ['validate'], project, env);
    expect(validate.stderr).toBe('');
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain('valid');
    const plan = await runIn(agentform, ['plan'], project, env);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('2 to add');
    const apply = await runIn(agentform, ['apply', '--auto-approve'], project, env);
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Apply complete! Resources: 2 added');
    const again = await runIn(agentform, ['plan', '--detailed-exitcode'], project, env);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes');
  }, 60_000);

  it('agentform server says better-sqlite3 is needed, exit 1, no stack trace, nothing created', async () => {
    const data = join(work, 'server-data');
    const server = await runIn(agentform, ['server', '--port', '0', '--data', data], work, cliEnv());
    expect(server.code).toBe(1);
    expect(server.stderr).toContain(MISSING_SQLITE);
    expect(server.stderr).toContain('npm install better-sqlite3');
    expect(server.stderr).not.toMatch(/^\s+at /m);
    expect(server.stdout).toBe('');
    expect(existsSync(data)).toBe(false);
  });

  it('a url: local project says better-sqlite3 is needed, exit 1, no stack trace', async () => {
    const project = join(work, 'local');
    await mkdir(project);
    await writeFile(join(project, 'agentform.yaml'), 'version: 1\nenvironments:\n  dev:\n    url: local\n');
    await writeFile(join(project, 'resources.yaml'), PROJECT_RESOURCES);
    const plan = await runIn(agentform, ['plan'], project, cliEnv());
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(MISSING_SQLITE);
    expect(plan.stderr).not.toMatch(/^\s+at /m);
  });
});
