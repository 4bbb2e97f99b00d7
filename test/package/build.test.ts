// The build as a developer uses it from a Git checkout: the CLI runs directly and through `npx`.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, sep } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI, REPO } from '../helpers/cli.js';
import { startServerProcess } from '../helpers/server-process.js';
import { VERSION } from '../../src/cli/version.js';

const run = promisify(execFile);

/** The quickstart copied to `dir`, without what runs left in it. */
function quickstartCopy(dir: string): string {
  cpSync(join(REPO, 'examples', 'quickstart'), dir, { recursive: true, filter: (source) => basename(source) !== '.agentform' });
  return dir;
}

/** The project's YAML with a tab in a comment atop each file: the plain parser leaves such files to the yaml library. */
function beyondPlain(dir: string): string {
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && entry.name.endsWith('.yaml')) writeFileSync(path, `#\ta tab\n${readFileSync(path, 'utf8')}`);
  }
  return dir;
}

describe('the built CLI in a checkout', () => {
  it('is executable, so ./dist/cli/agentform.js runs as a command', async () => {
    expect(statSync(CLI).mode & 0o111).toBe(0o111);
    const { stdout } = await run(CLI, ['--version']);
    expect(stdout.trim()).toBe(VERSION);
  });

  // The peer benchmark in ../shared/bench (and older scripts) run tsc's entry: it must be the bundle,
  // or they time ~90 unbundled modules users never run.
  it('runs the bundle from tsc’s old entry, dist/src/cli/main.js', async () => {
    const entry = join(REPO, 'dist', 'src', 'cli', 'main.js');
    // A link where the system allows one (so it stays CommonJS), else a one-line forwarder.
    const forwards = realpathSync(entry) === realpathSync(CLI) || readFileSync(entry, 'utf8').includes("import '../../cli/agentform.js'");
    expect(forwards).toBe(true);
    const { stdout } = await run(process.execPath, [entry, '--version']);
    expect(stdout.trim()).toBe(VERSION);
  });

  it('runs as `npx agentform` inside the clone, without npm link', async () => {
    const { stdout } = await run('npx', ['--no-install', 'agentform', '--version'], { cwd: REPO });
    expect(stdout.trim()).toBe(VERSION);
  });
});

describe('the bundle', () => {
  // The bundle's chunks are not the tsc output: validators precompiled from other code would not
  // match its source hash and every run would compile the schemas again (~100 ms), silently.
  it.each([
    ['plain YAML: the plain parser alone', false, {}],
    ['tabs: the yaml library too', true, {}],
    ['AGENTFORM_YAML_PARSER=library: the yaml library for plain YAML too', true, { AGENTFORM_YAML_PARSER: 'library' }],
  ] as Array<[string, boolean, NodeJS.ProcessEnv]>)(
    'validates with its precompiled validators and its own YAML parsers, loading nothing from node_modules (%s)',
    async (_name, library, env) => {
      const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
      const report = join(dir, 'loaded.json');
      const hook = join(dir, 'hook.cjs');
      const project = quickstartCopy(join(dir, 'quickstart'));
      if (library && !env.AGENTFORM_YAML_PARSER) beyondPlain(project);
      writeFileSync(hook, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify(Object.keys(require.cache))));\n`);
      const { stdout, stderr } = await run(process.execPath, ['--require', hook, CLI, 'validate', project, '--debug'], {
        env: { ...process.env, AGENTFORM_PARSE_CACHE: 'off', ...env },
      });
      expect(stdout).toContain('valid');
      const loaded = JSON.parse(readFileSync(report, 'utf8')) as string[];
      expect(loaded.filter((file) => file.includes(`ajv${sep}dist${sep}compile${sep}`))).toEqual([]);
      // Nor anything else from node_modules: the yaml library (~70 files, ~28 ms from there) is a file
      // of the bundle, compiled from its code cache like the rest (src/config/yaml-source.ts), and
      // loaded only for YAML the plain parser (src/config/yaml-plain.ts) leaves to it.
      expect(loaded.filter((file) => file.includes(`${sep}node_modules${sep}`))).toEqual([]);
      expect(loaded.includes(join(REPO, 'dist', 'cli', 'yaml.js'))).toBe(library);
      // Every chunk it loaded came from its code cache (the build trains the library's too).
      expect(stderr).toMatch(/start-up: \d+ bundle files compiled from the V8 code cache, 0 without one, 0 whose cache V8 rejected/);
      rmSync(dir, { recursive: true, force: true });
    },
  );

  // The precompiled validators call two of ajv's runtime helpers (equal for uniqueItems, ucs2length
  // for minLength); the bundle carries them (src/config/validator-runtime.ts) instead of resolving
  // and compiling them from node_modules on every run (~2.8 ms).
  it('runs the helpers of its precompiled validators from the bundle, not from node_modules', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-helpers-'));
    const report = join(dir, 'loaded.json');
    const hook = join(dir, 'hook.cjs');
    writeFileSync(hook, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify(Object.keys(require.cache))));\n`);
    const policy =
      'policy:\n  custom:\n    - id: team-label\n      message: ""\n      severity: warning\n      kinds: [agent, agent]\n      schema: {type: object}\n';
    writeFileSync(join(dir, 'agentform.yaml'), `version: 1\nenvironments:\n  dev:\n    url: local\n${policy}`);
    const result = await run(process.execPath, ['--require', hook, CLI, 'validate', dir]).then(
      () => ({ stdout: '', code: 0 }),
      (error: { stdout: string; code: number }) => error,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('agentform.yaml:8:16: policy.custom[0].message: must not be empty');
    expect(result.stdout).toContain('agentform.yaml:10:22: policy.custom[0].kinds[1]: items 0 and 1 are the same');
    const loaded = JSON.parse(readFileSync(report, 'utf8')) as string[];
    expect(loaded.filter((file) => /node_modules.(ajv|fast-deep-equal)\b/.test(file))).toEqual([]);
  });

  // The YAML parser's debugging switches (LOG_TOKENS, LOG_STREAM) were read from process.env for
  // every token, a call into C++ each: 132,484 reads to parse 1,000 agents (~7 % of a cold
  // validate, ~16 % at 5,000). The build makes them one read each (scripts/build.mjs).
  it('parses YAML without reading the environment for every token, and its debugging switches still work', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-env-reads-'));
    const report = join(dir, 'reads.json');
    const hook = join(dir, 'hook.cjs');
    writeFileSync(
      hook,
      `const reads = { LOG_TOKENS: 0, LOG_STREAM: 0 };
process.env = new Proxy(process.env, { get(target, key) { if (key in reads) reads[key] += 1; return Reflect.get(target, key); } });
process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify(reads)));\n`,
    );
    // Tabs, so that the yaml library parses it (the plain parser would).
    const project = beyondPlain(quickstartCopy(join(dir, 'quickstart')));
    const { stdout } = await run(process.execPath, ['--require', hook, CLI, 'validate', project], { env: { ...process.env, AGENTFORM_PARSE_CACHE: 'off' } });
    expect(stdout).toContain('valid');
    expect(JSON.parse(readFileSync(report, 'utf8'))).toEqual({ LOG_TOKENS: 1, LOG_STREAM: 1 });
    const traced = await run(process.execPath, [CLI, 'validate', project], { env: { ...process.env, AGENTFORM_PARSE_CACHE: 'off', LOG_TOKENS: '1' } });
    expect(traced.stdout).toMatch(/^\| "kind"$/m);
    rmSync(dir, { recursive: true, force: true });
  });

  // Without its chunks' code caches, every run on a Node without a compile cache of its own (Node 20)
  // compiles the bundle again. The precompiled validators come through the same loader: a cache V8
  // rejected (made under other flags) would show as rejected here.
  it('loads its chunks and validators through the code cache the build trained', async () => {
    // Without the parse cache, so that the YAML parser's chunks load too.
    const { stderr } = await run(process.execPath, [CLI, 'validate', beyondPlain(quickstartCopy(mkdtempSync(join(tmpdir(), 'bundle-chunks-')))), '--debug'], {
      env: { ...process.env, AGENTFORM_PARSE_CACHE: 'off' },
    });
    const [, fromCache, compiled, rejected] =
      /start-up: (\d+) bundle files compiled from the V8 code cache, (\d+) without one, (\d+) whose cache V8 rejected/.exec(stderr) ?? [];
    expect(Number(fromCache), stderr).toBeGreaterThan(3);
    expect([compiled, rejected]).toEqual(['0', '0']);
  });

  // The off switch (src/util/optimizations.ts): no code cache, the yaml library for every file, no parse cache.
  it('runs without its speed-ups under AGENTFORM_OPTIMIZATIONS=off', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-off-'));
    const report = join(dir, 'loaded.json');
    const hook = join(dir, 'hook.cjs');
    writeFileSync(hook, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify(Object.keys(require.cache))));\n`);
    const project = quickstartCopy(join(dir, 'quickstart'));
    const { AGENTFORM_PARSE_CACHE: _cache, ...inherited } = process.env;
    try {
      const { stdout, stderr } = await run(process.execPath, ['--require', hook, CLI, 'validate', project, '--debug'], {
        env: { ...inherited, AGENTFORM_OPTIMIZATIONS: 'off' },
      });
      expect(stdout).toContain('valid');
      expect(stderr).toContain("[debug] start-up: no code cache, V8's defaults (AGENTFORM_OPTIMIZATIONS)");
      expect((JSON.parse(readFileSync(report, 'utf8')) as string[]).includes(join(REPO, 'dist', 'cli', 'yaml.js'))).toBe(true);
      expect(existsSync(join(project, '.agentform', 'cache'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // src/startup/v8-settings.ts: the young generation stays at its first size (two 1 MB
  // semi-spaces), where V8 would let a run over a large project grow it to 16 MB.
  it('keeps V8’s young generation at its first size, unless AGENTFORM_OPTIMIZATIONS=off', async () => {
    const { writeProject } = await import('../../bench/lib/generate.js');
    const project = writeProject({ agents: 1000, connections: 50, providers: 10 }, 'dev');
    const hook = join(project, '..', `${basename(project)}-young.cjs`);
    writeFileSync(
      hook,
      "process.on('exit', () => process.stderr.write(`new space: ${require('v8').getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size}\\n`));\n",
    );
    const newSpace = async (env: NodeJS.ProcessEnv) => {
      const { stderr } = await run(process.execPath, ['--require', hook, CLI, 'validate', project], { env: { ...process.env, ...env } });
      return Number(/new space: (\d+)/.exec(stderr)?.[1]);
    };
    try {
      expect(await newSpace({})).toBeLessThanOrEqual(2 * 1024 * 1024);
      expect(await newSpace({ AGENTFORM_OPTIMIZATIONS: 'off' })).toBeGreaterThan(4 * 1024 * 1024);
    } finally {
      rmSync(project, { recursive: true, force: true });
      rmSync(hook, { force: true });
    }
  });

  // `agentform server`'s request path (loaded at the first requests) comes from the caches too, not from a compile.
  it('runs `agentform server` through the code cache the build trained for it', async () => {
    const data = mkdtempSync(join(tmpdir(), 'agentform-server-cache-'));
    const project = quickstartCopy(mkdtempSync(join(tmpdir(), 'agentform-server-cache-project-')));
    const { AGENTFORM_WRITE_CODE_CACHE: _write, ...inherited } = process.env;
    const server = startServerProcess(['--port', '0', '--data', data, '--environments', 'dev'], { AGENTFORM_DEBUG: '1' });
    try {
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(await server.ready)![1]!;
      const token = (JSON.parse(readFileSync(join(data, 'credentials.json'), 'utf8')) as { environments: { dev: { token: string } } }).environments.dev.token;
      await run(process.execPath, [CLI, 'apply', project, '--url', url, '--auto-approve'], { env: { ...inherited, AGENTFORM_TOKEN: token } });
    } finally {
      await server.stop('SIGINT');
      rmSync(data, { recursive: true, force: true });
      rmSync(project, { recursive: true, force: true });
    }
    const stderr = server.stderr();
    const [, fromCache, compiled, rejected] =
      /start-up: (\d+) bundle files compiled from the V8 code cache, (\d+) without one, (\d+) whose cache V8 rejected/.exec(stderr) ?? [];
    expect(Number(fromCache), stderr).toBeGreaterThan(3);
    expect(rejected).toBe('0');
    // At most the MCP client's chunk, which the server loads to reach the quickstart's tool server:
    // it imports the SDK dynamically, which a chunk compiled from a cache cannot (scripts/build.mjs).
    expect(Number(compiled)).toBeLessThanOrEqual(1);
  });

  // V8 keeps a source with a single character beyond Latin-1 as two bytes per character: escaped
  // strings and no JSDoc, the chunks a plan of 20 agents loads took 0.4 MB less and ~1 ms less.
  // (License comments stay: the one left, in a bundled dependency, is Latin-1.)
  it('has only one-byte (Latin-1) characters in its chunks, so V8 keeps their sources at one byte a character', () => {
    const dir = join(REPO, 'dist', 'cli');
    const twoByte = readdirSync(dir)
      .filter((name) => name.endsWith('.js'))
      .filter((name) => /[^\x00-\xff]/.test(readFileSync(join(dir, name), 'utf8')));
    expect(twoByte).toEqual([]);
  });
});
