// Builds dist/ once before any test file runs, as `npm run build` does. Tests that spawn the CLI use
// dist/; rebuilding it from inside a test file while other files spawn it made those runs flaky (a
// half-written module). With two vitest projects (server profiles) it still runs once.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  // `npm run build` itself (tsc, the bundle, the precompiled validators), so the CLI under test is the one users get.
  execFileSync(process.execPath, [join(repo, 'scripts', 'build.mjs')], { cwd: repo, stdio: 'inherit' });
  return removeRunTemp;
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
