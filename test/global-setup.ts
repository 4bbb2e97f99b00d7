// Builds dist/ once before any test file runs, as `npm run build` does. Tests that spawn the CLI use
// dist/; rebuilding it from inside a test file while other files spawn it made those runs flaky (a
// half-written module). With two vitest projects (server profiles) it still runs once.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Set once the build ran: every vitest project runs the global setup, the build is needed once. */
const BUILT = Symbol.for('agentform.test.dist-built');

export default function setup(): (() => void) | undefined {
  const state = globalThis as { [BUILT]?: boolean };
  if (state[BUILT]) return undefined;
  state[BUILT] = true;
  const removeRunTemp = useRunTempDirectory();
  // The parse cache (src/config/parse-cache.ts) stays on in tests, so it is exercised, but in the
  // run's directory rather than the developer's cache; test workers and CLI children (test/helpers/cli.ts
  // cliEnv) inherit it. A cache given from outside is used as it is.
  process.env.AGENTFORM_PARSE_CACHE ??= join(process.env.TMPDIR!, 'parse-cache');
  const repo = fileURLToPath(new URL('..', import.meta.url));
  // `npm run build` itself (tsc, the bundle, the precompiled validators), so the CLI under test is
  // the one users get; skipped when dist/ was built by this setup from the same inputs, so that one
  // test file runs in seconds. AGENTFORM_TEST_REBUILD=1 builds anyway.
  const stamp = join(repo, 'dist', '.test-build-inputs');
  const inputs = buildInputsDigest(repo);
  const built = existsSync(join(repo, 'dist', 'cli', 'agentform.js')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === inputs;
  if (!built || process.env.AGENTFORM_TEST_REBUILD === '1') {
    rmSync(stamp, { force: true });
    execFileSync(process.execPath, [join(repo, 'scripts', 'build.mjs')], { cwd: repo, stdio: 'inherit' });
    writeFileSync(stamp, inputs);
  }
  return removeRunTemp;
}

/** What the build reads (see scripts/build.mjs: the sources, schemas, the examples the code caches train on). */
const BUILD_INPUT_DIRS = ['src', 'bench', 'scripts', 'schemas', 'examples'];
const BUILD_INPUT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json'];

/** A digest of every build input's path and content, and of the Node that builds. */
export function buildInputsDigest(repo: string): string {
  const hash = createHash('sha256').update(process.version);
  const add = (path: string) => hash.update(relative(repo, path)).update('\0').update(readFileSync(path)).update('\0');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      // Local state and results a run leaves behind are not inputs.
      if (entry.name === '.agentform' || entry.name === 'node_modules' || entry.name === 'results.json') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) add(path);
    }
  };
  for (const dir of BUILD_INPUT_DIRS) if (existsSync(join(repo, dir))) walk(join(repo, dir));
  for (const file of BUILD_INPUT_FILES) if (existsSync(join(repo, file))) add(join(repo, file));
  return hash.digest('hex');
}

/**
 * Every temporary directory of this run (the tests' projects, databases, CLI children's files) goes
 * under one directory that is removed when the run ends, so a machine that runs the suite many
 * times a day does not collect thousands of them. Workers and the CLI children they spawn inherit
 * TMPDIR, which os.tmpdir() reads on every call.
 */
function useRunTempDirectory(): () => void {
  const runTemp = mkdtempSync(join(tmpdir(), 'agentform-test-run-'));
  process.env.TMPDIR = runTemp;
  return () => rmSync(runTemp, { recursive: true, force: true, maxRetries: 3 });
}
