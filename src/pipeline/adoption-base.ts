// `--base REV|DIR`: the configuration a change is compared with to tell an adoption (a declared
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

/** The names a project's root file may have (config/files.ts). */
const ROOT_FILES = ['agentform.yaml', 'agentform.yml'];

export async function loadAdoptionBase(projectDir: string, spec: string, environment: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadedBase> {
  if (spec.trim() === '') throw new UserError('--base needs a git revision (origin/main) or a directory');
  // A directory wins over a revision of the same name.
  if (existsSync(spec) && statSync(spec).isDirectory()) {
    if (!ROOT_FILES.some((name) => existsSync(join(spec, name)))) {
      throw new UserError(`--base ${spec}: the directory holds no agentform.yaml`, 'name the project directory as it was at the base, or a git revision');
    }
    return declaredIn(resolve(spec), spec, environment, env);
  }
  const repository = await git(projectDir, ['rev-parse', '--show-toplevel']).catch((error: unknown) => {
    throw new UserError(`--base ${spec}: no such directory, and git cannot read a repository at ${projectDir}: ${gitMessage(error)}`);
  });
  const commit = await git(projectDir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${spec}^{commit}`]).catch(() => {
    throw new UserError(`--base ${spec}: no such revision or directory`, 'in CI, fetch the base commit first (a deeper clone), or check the name');
  });
  const label = `${spec} (${commit.slice(0, 12)})`;
  const inRepository = relative(await realpath(repository), await realpath(projectDir))
    .split(sep)
    .join('/');
  const prefix = inRepository === '' ? '' : `${inRepository}/`;
  let existed = false;
  for (const name of ROOT_FILES)
    if (!existed)
      existed = await git(repository, ['cat-file', '-e', `${commit}:${prefix}${name}`]).then(
        () => true,
        () => false,
      );
  // The project did not exist at the base: everything it declares and finds live is adopted.
  if (!existed) return { base: { label, declared: new Set() } };
  const scratch = await mkdtemp(join(tmpdir(), 'agentform-base-'));
  try {
    // The whole tree (a project may read ${file:} beyond its directory), through a throwaway index:
    // the repository's own index, working tree and worktrees are not touched. From the top: in a
    // subdirectory, checkout-index would write only the entries under it.
    const index = { ...env, GIT_INDEX_FILE: join(scratch, 'index') };
    const tree = join(scratch, 'tree');
    await git(repository, ['read-tree', commit], index);
    await git(repository, ['checkout-index', '--all', `--prefix=${tree}${sep}`], index);
    return await declaredIn(join(tree, inRepository), label, environment, env);
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw new UserError(`--base ${spec}: git could not read the project at ${commit.slice(0, 12)}: ${gitMessage(error)}`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function declaredIn(dir: string, label: string, environment: string, env: NodeJS.ProcessEnv): Promise<LoadedBase> {
  let declared: Set<ResourceAddress> | undefined;
  try {
    declared = declaredAddresses(await loadProject(dir, { noParseCache: true }), environment, env);
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

/** What git said (its first line of stderr), else why it could not run (not installed). */
function gitMessage(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  const said = typeof stderr === 'string' ? stderr.trim().split('\n')[0] : '';
  if (said) return said;
  return (error as { code?: unknown }).code === 'ENOENT'
    ? 'git is not installed'
    : error instanceof Error
      ? (error.message.split('\n')[0] ?? '')
      : String(error);
}

function git(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((done, fail) => {
    execFile('git', args, { cwd, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, ...(env ? { env } : {}) }, (error, stdout, stderr) => {
      if (error) fail(Object.assign(error, { stderr }));
      else done(stdout.trim());
    });
  });
}
