// Runs the built CLI (dist/) as a child process, the way a user or CI does.
import { spawn } from 'node:child_process';
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_PROFILE_ENV, serverProfileFromEnv, type ServerProfileName } from '../../src/server/profiles.js';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** The bundled CLI, what `npm run build` makes and the package's `bin` names: what users run. */
export const CLI = join(REPO, 'dist', 'cli', 'agentform.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The server profile this test run uses (vitest.config.ts sets AGENTFORM_SERVER_PROFILE per
 * project): local control planes started in the test process read it themselves, CLI children
 * get it through cliEnv.
 */
export const TEST_SERVER_PROFILE: ServerProfileName = serverProfileFromEnv();

/**
 * A clean environment for a CLI child: nothing from the developer's shell leaks into what is
 * tested, except the server profile of this run (for the planes `url: local` starts) and the
 * run's own parse cache directory (test/global-setup.ts).
 */
export function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const parseCache = process.env.AGENTFORM_PARSE_CACHE ? { AGENTFORM_PARSE_CACHE: process.env.AGENTFORM_PARSE_CACHE } : {};
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', [SERVER_PROFILE_ENV]: TEST_SERVER_PROFILE, ...parseCache, ...extra };
}

/** `node`: the Node binary that runs the CLI (default: the one running the tests). */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; node?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.node ?? process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? REPO,
      env: cliEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/**
 * Local state a run leaves in a project (`.agentform/`, git-ignored). Copies of checked-in projects
 * leave it out: a test must never see what an earlier `npm run quickstart` wrote to the work tree.
 */
const LOCAL_STATE_DIRS = new Set(['.agentform', 'node_modules']);

/** `cp` filter: everything but local state directories. */
export function withoutLocalState(source: string): boolean {
  return !LOCAL_STATE_DIRS.has(basename(source));
}

/** A fresh copy of an example project in a temp dir (its .agentform/ starts empty). */
export async function copyExample(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `agentform-${name}-`));
  await cp(join(REPO, 'examples', name), dir, { recursive: true, filter: withoutLocalState });
  return dir;
}

/** The RPCs a run called, read from its --debug trace on stderr. */
export function calledRpcs(stderr: string): string[] {
  return [...stderr.matchAll(/→ POST \S+ \(([A-Za-z.]+), attempt/g)].map((match) => match[1] as string);
}

export const READ_RPC = /\.(list|get|models|events|pending)$/;
