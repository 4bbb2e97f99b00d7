// `--base REF|DIR`: the configuration a change is compared with to tell an adoption (a declared
// resource that exists live but that the base did not declare: this change takes it over) from an
// update. agentform keeps no state, so "was it applied from this project" is read from what the
// base revision (the branch that is applied, usually main) declared. A directory is read as the
// project at the base; anything else is a git revision of the repository holding the project.
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { declaredAddresses, loadProject } from '../config/index.js';
import type { AdoptionBase } from '../engine/plan.js';
import { ProblemsError, UserError } from '../errors.js';
import type { ResourceAddress } from '../model/resources.js';

/** The base for one environment, or why adoption could not be checked (a warning, not an error). */
export type LoadedBase = { base: AdoptionBase } | { warning: string };

export async function loadAdoptionBase(projectDir: string, spec: string, environment: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadedBase> {
  if (spec.trim() === '') throw new UserError('--base needs a git revision (origin/main) or a directory');
  if (existsSync(spec) && statSync(spec).isDirectory()) return declaredIn(resolve(spec), spec, environment, env);
  const repository = await gitOutput(projectDir, ['rev-parse', '--show-toplevel']).catch(() => {
    throw new UserError(`--base ${spec}: no such directory, and ${projectDir} is not in a git repository`);
  });
  const commit = await gitOutput(projectDir, ['rev-parse', '--verify', '--quiet', `${spec}^{commit}`]).catch(() => {
    throw new UserError(`--base ${spec}: no such revision or directory`, 'in CI, fetch the base first (git fetch origin main), or check the name');
  });
  const label = `${spec} (${commit.slice(0, 12)})`;
  const inRepository = relative(await realpath(repository), await realpath(projectDir))
    .split(sep)
    .join('/');
  const tree = `${commit}:${inRepository}`;
  const rootFile = `${commit}:${inRepository === '' ? '' : `${inRepository}/`}agentform.yaml`;
  // The project did not exist at the base: everything it declares and finds live is adopted.
  const existed = await gitOutput(projectDir, ['cat-file', '-e', rootFile]).then(
    () => true,
    () => false,
  );
  if (!existed) return { base: { label, declared: new Set() } };
  const scratch = await mkdtemp(join(tmpdir(), 'agentform-base-'));
  try {
    // A throwaway index: the repository's own index, working tree and worktrees are not touched.
    const index = { ...env, GIT_INDEX_FILE: join(scratch, 'index') };
    // From the top: in a subdirectory, checkout-index would only write the entries under it.
    await gitOutput(repository, ['read-tree', tree], index);
    await gitOutput(repository, ['checkout-index', '--all', `--prefix=${join(scratch, 'project')}${sep}`], index);
    return await declaredIn(join(scratch, 'project'), label, environment, env);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function declaredIn(dir: string, label: string, environment: string, env: NodeJS.ProcessEnv): Promise<LoadedBase> {
  let declared: Set<ResourceAddress> | undefined;
  try {
    declared = declaredAddresses(await loadProject(dir), environment, env);
  } catch (error) {
    return { warning: `adoption not checked: the configuration at ${label} does not load (${firstProblem(error, dir)})` };
  }
  // The environment is new at this change: whatever it finds live, it takes over.
  return { base: { label, declared: declared ?? new Set() } };
}

/** The first problem of a configuration that does not load, located in the base (`agents/a.yaml:3:5: ...`). */
function firstProblem(error: unknown, dir: string): string {
  if (error instanceof ProblemsError && error.problems[0]) {
    const { message, location } = error.problems[0];
    const file = location && relative(dir, resolve(location.file)).split(sep).join('/');
    return location ? `${file}:${location.line}:${location.col}: ${message}` : message;
  }
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

function gitOutput(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((done, fail) => {
    execFile('git', args, { cwd, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, ...(env ? { env } : {}) }, (error, stdout) => {
      if (error) fail(error);
      else done(stdout.trim());
    });
  });
}
