// Builds dist/ once before any test file runs, as `npm run build` does. Tests that spawn the CLI use
// dist/; rebuilding it from inside a test file while other files spawn it made those runs flaky (a
// half-written module). With two vitest projects (server profiles) it still runs once.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Set once the build ran: every vitest project runs the global setup, the build is needed once. */
const BUILT = Symbol.for('agentform.test.dist-built');

export default function setup(): (() => void) | undefined {
  const state = globalThis as { [BUILT]?: boolean };
  if (state[BUILT]) return undefined;
  state[BUILT] = true;
  // The parse cache (src/config/parse-cache.ts) stays on in tests, so it is exercised, but in a
  // directory of this run rather than the developer's ~/.cache; test workers and CLI children
  // (test/helpers/cli.ts cliEnv) inherit it.
  const parseCache = process.env.AGENTFORM_PARSE_CACHE ?? mkdtempSync(join(tmpdir(), 'agentform-test-parse-cache-'));
  const ownCache = process.env.AGENTFORM_PARSE_CACHE === undefined;
  process.env.AGENTFORM_PARSE_CACHE = parseCache;
  const repo = fileURLToPath(new URL('..', import.meta.url));
  execFileSync(process.execPath, [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(repo, 'tsconfig.json')], { cwd: repo, stdio: 'inherit' });
  // The rest of `npm run build`: the precompiled schema validators, so the CLI under test is the one users get.
  execFileSync(process.execPath, [join(repo, 'dist', 'src', 'config', 'write-precompiled-schemas.js')], { cwd: repo, stdio: 'inherit' });
  chmodSync(join(repo, 'dist', 'src', 'cli', 'main.js'), 0o755);
  return ownCache ? () => rmSync(parseCache, { recursive: true, force: true }) : undefined;
}
