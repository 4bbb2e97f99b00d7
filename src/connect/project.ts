// Commands that need a connection but not the project's resources (whoami, the operations
// commands, export): with -e/--env, or when the directory (--dir, default the cwd) holds
// agentform.yaml, that environment of the project (the guard applies); otherwise --url/--token,
// then AGENTFORM_URL/AGENTFORM_TOKEN/AGENTFORM_COOKIE. Only agentform.yaml is needed: an unset
// ${env:} in a resource file (a provider secret, say) does not stop `agentform sandboxes`.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { environmentTargetFor, loadProject, pickEnvironment } from '../config/index.js';
import { type ClientFlags, type Connection, openConnection } from './open.js';
import type { Variables } from './resolve.js';

/** -e/--env and --dir of a command. */
export interface ProjectSelection {
  env?: string;
  dir?: string;
}

const ROOT_FILE = 'agentform.yaml';

export function usesProject(selection: ProjectSelection, cwd: string = process.cwd()): boolean {
  return selection.env !== undefined || existsSync(join(resolve(cwd, selection.dir ?? '.'), ROOT_FILE));
}

/** The connection of a command without a plan; says on stderr when the local control plane is used. */
export async function openProjectOrDirect(
  selection: ProjectSelection,
  flags: ClientFlags,
  env: Variables = process.env,
  cwd: string = process.cwd(),
): Promise<Connection> {
  const announce = (line: string) => process.stderr.write(line);
  if (!usesProject(selection, cwd)) return openConnection({ kind: 'direct', cwd }, { flags, env, announce });
  const project = await loadProject(resolve(cwd, selection.dir ?? '.'));
  const name = pickEnvironment(project, selection.env);
  const target = environmentTargetFor(project, name, env);
  return openConnection({ kind: 'environment', projectDir: project.dir, environments: project.environments, target }, { flags, env, announce });
}

/** Opens the connection, runs `work`, always closes (the local control plane too). */
export async function withConnection<T>(
  selection: ProjectSelection,
  flags: ClientFlags,
  work: (connection: Connection) => Promise<T>,
  env: Variables = process.env,
): Promise<T> {
  const connection = await openProjectOrDirect(selection, flags, env);
  try {
    return await work(connection);
  } finally {
    await connection.close();
  }
}
