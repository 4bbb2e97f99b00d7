// `npm run build` (and the tests' global setup): TypeScript to dist/, then the CLI bundled into
// dist/cli/ (what `agentform` runs), each layout with its own precompiled validators.
// The bundle is what users get: one entry file and a few lazily loaded chunks instead of ~90 ES
// modules, whose resolving and loading was a third of a small plan's time.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';

const repo = fileURLToPath(new URL('..', import.meta.url));
const dist = join(repo, 'dist');
const bundleDir = join(dist, 'cli');
const node = (...args) => execFileSync(process.execPath, args, { cwd: repo, stdio: 'inherit' });

// tsc's entry is a link to the bundle after a build (below); tsc would write through it.
const tscEntry = join(dist, 'src', 'cli', 'main.js');
rmSync(tscEntry, { force: true });
node(join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(repo, 'tsconfig.json'));
// For the tests and benchmarks that import dist/src directly.
node(join(dist, 'src', 'build', 'write-precompiled-schemas.js'));

/**
 * commander requires node:child_process when it loads, for executable subcommands (agentform has
 * none): ~6 ms of every run. It is required on first use instead.
 */
const lazyChildProcess = {
  name: 'agentform:lazy-child-process',
  transform(code, id) {
    if (!id.replaceAll('\\', '/').endsWith('node_modules/commander/lib/command.js')) return null;
    const eager = "const childProcess = require('node:child_process');";
    if (!code.includes(eager)) {
      this.warn('commander no longer requires node:child_process as expected: it now loads eagerly');
      return null;
    }
    return code.replace(eager, "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };");
  },
};

/**
 * The YAML parser reads an environment variable for every token it handles (LOG_TOKENS in its
 * parser, LOG_STREAM in its composer: debugging switches), and each read of process.env is a call
 * into C++ (~0.2 µs): ~130,000 of them to parse 1,000 agents, ~25 ms of a run with a cold parse
 * cache. They are read once, as the module loads; setting either before the run still works.
 */
const yamlDebugSwitchesOnce = {
  name: 'agentform:yaml-debug-switches-once',
  transform(code, id) {
    const file = id.replaceAll('\\', '/');
    const switches = file.endsWith('node_modules/yaml/dist/parse/parser.js')
      ? ['LOG_TOKENS']
      : file.endsWith('node_modules/yaml/dist/compose/composer.js')
        ? ['LOG_STREAM']
        : [];
    if (switches.length === 0) return null;
    const imported = "var node_process = require('process');";
    let out = code;
    for (const name of switches) {
      const perToken = `node_process.env.${name}`;
      if (!out.includes(imported) || !out.includes(perToken)) {
        this.warn(`yaml no longer reads ${name} as expected: it is read per token again`);
        return null;
      }
      out = out.replaceAll(perToken, `${name}_ONCE`).replace(imported, `${imported}\nconst ${name}_ONCE = node_process.env.${name};`);
    }
    return out;
  },
};

rmSync(bundleDir, { recursive: true, force: true });
const bundle = await rolldown({
  input: {
    agentform: join(dist, 'src', 'cli', 'bin.js'),
    // Bundled too, so the validators it writes come from the very code the bundle checks them with.
    'write-precompiled-schemas': join(dist, 'src', 'build', 'write-precompiled-schemas.js'),
    // The YAML parser as a file of its own, which src/config/yaml-source.ts requires on its first
    // parse: bundled (hence code-cached) rather than ~70 files from node_modules.
    yaml: createRequire(import.meta.url).resolve('yaml'),
  },
  platform: 'node',
  // The native SQLite binding is loaded from node_modules (and only by the local control plane).
  external: [/^node:/, 'better-sqlite3'],
  plugins: [lazyChildProcess, yamlDebugSwitchesOnce],
  logLevel: 'warn',
});
// One flat folder: modules that find files beside themselves (the precompiled validators) look in it.
// CommonJS, not ES modules: Node loads a CommonJS chunk synchronously, without the ES loader's
// asynchronous resolve/read/link steps per file and facade per built-in (~10 ms of a small plan).
// The folder's package.json says so (the package itself is "type": "module").
mkdirSync(bundleDir, { recursive: true });
writeFileSync(join(bundleDir, 'package.json'), '{ "type": "commonjs" }\n');
// ASCII only (strings escaped, JSDoc left out; license comments kept): V8 holds a source with one
// non-ASCII character at two bytes a character, and arrows in messages and comments had made the
// sources of most chunks a plan loads two-byte (plan of 20 agents, A/B: ~1 ms and 0.4 MB less).
const { output } = await bundle.write({
  dir: bundleDir,
  format: 'cjs',
  entryFileNames: '[name].js',
  chunkFileNames: '[name]-[hash].js',
  charset: 'ascii',
  comments: { legal: true, annotation: true, jsdoc: false },
});
await bundle.close();
// Chunks that import() a module outside the bundle (a Node built-in, in the MCP SDK): compiled from
// a code cache (vm.Script), import() would have no loader, so they keep none and Node compiles them.
const bundled = new Set(output.map((file) => file.fileName));
const dynamicImporters = output.filter((file) => file.type === 'chunk' && file.dynamicImports.some((id) => !bundled.has(id))).map((file) => file.fileName);
node(join(bundleDir, 'write-precompiled-schemas.js'));
chmodSync(join(bundleDir, 'agentform.js'), 0o755);
await trainCodeCache();
/**
 * The chunks' V8 code caches (src/startup/bundle-code-cache.ts), for a Node without a compile cache
 * of its own: the CLI run as users run it, validate of every example, then apply and plan of a copy
 * of the quickstart against the embedded local control plane, then `agentform server`; each run
 * writes the caches of the chunks it loaded with every function it compiled (keeping those it read:
 * the caches accumulate). A failed run is reported, not fatal: the CLI works without caches, only
 * slower (test/package/build.test.ts checks that a plan uses them).
 */
async function trainCodeCache() {
  const cli = join(bundleDir, 'agentform.js');
  // The runs parse the project's YAML in a parse cache of their own, as a user's first run does.
  const { AGENTFORM_PARSE_CACHE: _sharedParseCache, AGENTFORM_OPTIMIZATIONS: _off, ...trainingEnv } = process.env;
  const project = quickstartCopy();
  try {
    // The other examples' projects too, for the validators of every kind of document.
    const examples = readdirSync(join(repo, 'examples'))
      .filter((name) => name !== 'quickstart')
      .map((name) => join(repo, 'examples', name))
      .filter((dir) => existsSync(join(dir, 'agentform.yaml')));
    const runs = [...examples.map((dir) => ['validate', dir]), ['validate', project], ['apply', project, '--auto-approve'], ['plan', project]];
    for (const args of runs) {
      // An example may need settings it does not have here: its validate still loads the validators.
      const check = args[1] === project ? execFileSync : spawnSync;
      check(process.execPath, [cli, ...args], {
        cwd: project,
        stdio: 'ignore',
        env: { ...trainingEnv, NO_COLOR: '1', AGENTFORM_WRITE_CODE_CACHE: '1', AGENTFORM_PARSE_CACHE: join(project, '.parse-cache') },
      });
    }
  } catch (error) {
    console.warn(`build: the bundle's code cache is incomplete (${String(error)}); the CLI runs, slower`);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
  try {
    await trainServerCodeCache(cli, trainingEnv);
  } catch (error) {
    console.warn(`build: the bundle's code cache is incomplete for the server (${String(error)}); \`agentform server\` runs, slower`);
  }
  const { codeCacheSuffix } = await import(pathToFileURL(join(dist, 'src', 'startup', 'bundle-code-cache.js')).href);
  for (const file of dynamicImporters) for (const kind of ['cli', 'server']) rmSync(join(bundleDir, `${file}${codeCacheSuffix(kind)}`), { force: true });
}

/**
 * A temporary copy of the quickstart for training runs, without the local data the README's first
 * command leaves there (its parse cache among it): the runs must parse the YAML, as a user's first
 * run does, to cache the parser.
 */
function quickstartCopy() {
  const project = mkdtempSync(join(tmpdir(), 'agentform-train-'));
  cpSync(join(repo, 'examples', 'quickstart'), project, { recursive: true, filter: (source) => basename(source) !== '.agentform' });
  // One file with a tab (in a comment), which the plain parser (src/config/yaml-plain.ts) leaves to
  // the yaml library: without it the runs never load the library, which would ship without its cache.
  const providers = join(project, 'providers.yaml');
  writeFileSync(providers, `#\tfor the yaml library\n${readFileSync(providers, 'utf8')}`);
  return project;
}

/**
 * `agentform server`'s part of the caches: the server started as users start it, writing its caches when it stops, after the CLI (not writing any) has applied and planned a copy
 * of the quickstart against it, so that they hold its whole request path.
 */
async function trainServerCodeCache(cli, env) {
  const data = mkdtempSync(join(tmpdir(), 'agentform-train-server-'));
  const project = quickstartCopy();
  const server = spawn(process.execPath, [cli, 'server', '--port', '0', '--data', data, '--environments', 'dev'], {
    env: { ...env, AGENTFORM_WRITE_CODE_CACHE: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => server.once('exit', resolve));
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      server.stdout.setEncoding('utf8').on('data', (chunk) => {
        out += chunk;
        const listening = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (listening) resolve(listening[1]);
      });
      server.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
      setTimeout(() => reject(new Error('the server did not listen within 30 s')), 30_000).unref();
    });
    const token = JSON.parse(readFileSync(join(data, 'credentials.json'), 'utf8')).environments.dev.token;
    const client = { ...env, NO_COLOR: '1', AGENTFORM_TOKEN: token };
    for (const args of [
      ['apply', project, '--url', url, '--auto-approve'],
      ['plan', project, '--url', url],
    ]) {
      execFileSync(process.execPath, [cli, ...args], { cwd: project, stdio: 'ignore', env: client, timeout: 60_000 });
    }
  } finally {
    // SIGINT: the server stops as a user stops it, and its caches are written as it exits.
    server.kill('SIGINT');
    const stuck = setTimeout(() => server.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(stuck);
    rmSync(project, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  }
}
// tsc's entry (the bundle's input, above) becomes a link to the bundle: whatever still runs the old
// path (the peer benchmark in ../shared/bench, scripts written before the bundle) runs the CLI users
// get. A link, not an ES module importing it: Node runs a main script from its real path, so it
// stays CommonJS, where an ES forwarder would start the ES loader first (~15 ms).
rmSync(tscEntry);
try {
  symlinkSync(join('..', '..', 'cli', 'agentform.js'), tscEntry);
} catch {
  // Where links need privileges (Windows): a forwarder, slower but the same CLI.
  writeFileSync(tscEntry, "#!/usr/bin/env node\n// Written by scripts/build.mjs: the CLI is the bundle.\nimport '../../cli/agentform.js';\n");
  chmodSync(tscEntry, 0o755);
}
