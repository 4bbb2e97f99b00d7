// Reads agentform.lock.yaml for the safety review (check, plan, apply, promote). Only reading, and
// only the parts the review needs: the `lock` command owns writing the file. One call, so that it
// can be swapped for the lock module's reader when both land.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { LOCK_FILE } from '../config/files.js';
import { UserError } from '../errors.js';
import { MCP_ANNOTATION_DEFAULTS, type LockedConnection, type LockedTool, type ToolAnnotations, type ToolSurfaceLock } from '../model/tool-lock.js';

export { LOCK_FILE };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function annotationsOf(value: unknown): ToolAnnotations {
  const raw = isObject(value) ? value : {};
  const hint = (key: keyof ToolAnnotations) => (typeof raw[key] === 'boolean' ? (raw[key] as boolean) : MCP_ANNOTATION_DEFAULTS[key]);
  return { readOnlyHint: hint('readOnlyHint'), destructiveHint: hint('destructiveHint'), idempotentHint: hint('idempotentHint'), openWorldHint: hint('openWorldHint') };
}

/** The lock as data, from its parsed YAML; throws a UserError naming what is malformed. */
export function toolLockFrom(value: unknown): ToolSurfaceLock {
  if (!isObject(value) || value.version !== 1 || !isObject(value.environments)) {
    throw new UserError(`${LOCK_FILE} is not a tool-surface lock (version: 1, environments: ...)`, 'write it again with agentform lock');
  }
  const environments: ToolSurfaceLock['environments'] = {};
  for (const [environment, connections] of Object.entries(value.environments)) {
    if (!isObject(connections)) continue;
    const out: Record<string, LockedConnection> = {};
    for (const [connection, entry] of Object.entries(connections)) {
      const tools = isObject(entry) && Array.isArray(entry.tools) ? entry.tools : [];
      out[connection] = {
        tools: tools.flatMap((tool): LockedTool[] =>
          isObject(tool) && typeof tool.name === 'string' ? [{ name: tool.name, annotations: annotationsOf(tool.annotations), digest: typeof tool.digest === 'string' ? tool.digest : '' }] : [],
        ),
      };
    }
    environments[environment] = out;
  }
  return { version: 1, environments };
}

/** The project's lock, or undefined when it has none yet. */
export async function readToolLock(projectDir: string): Promise<ToolSurfaceLock | undefined> {
  let text: string;
  try {
    text = await readFile(join(projectDir, LOCK_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UserError(`cannot read ${LOCK_FILE}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (error) {
    throw new UserError(`${LOCK_FILE} is not valid YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, 'write it again with agentform lock');
  }
  return toolLockFrom(parsed);
}
