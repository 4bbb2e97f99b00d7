// agentform export: connect (through the project when there is one, otherwise --url/--token), read
// the live state, turn it into files (src/export, pure) and write them atomically.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { RpcCaller } from '../../../api/operations.js';
import { UserError } from '../../../errors.js';
import { specSchemas } from '../../../config/schemas.js';
import { environmentNameFor, exportEnvironment, type ExportResult, type ExportSchemas, type ExportTarget } from '../../../export/index.js';
import { renderExportSummary } from '../../../render/export.js';
import type { ActualResource, ActualState } from '../../../model/resources.js';
import { readActualState } from '../../../state/read.js';
import { writeFileAtomic } from '../../../util/atomic-write.js';
import { PROJECT_SCHEMAS_DIR, schemaFiles, vscodeSettings } from '../../../config/editor-support.js';
import { openDirect } from '../../../connect/open.js';
import type { GlobalOptions } from '../../global-options.js';
import { openSession, runContext } from '../../../pipeline/session.js';
import type { ExportCommandOptions } from './options.js';

interface Source {
  caller: RpcCaller;
  target: ExportTarget;
  token?: string;
  close(): Promise<void>;
}

async function projectSource(projectDir: string, options: ExportCommandOptions, globals: GlobalOptions): Promise<Source> {
  const session = await openSession({ dir: projectDir, ...(options.env ? { environment: options.env } : {}) }, runContext(globals));
  const { name, slug, url } = session.desired.target;
  return {
    caller: session.client,
    target: { name, slug, url: globals.url ?? url },
    ...(session.token ? { token: session.token } : {}),
    close: () => session.close(),
  };
}

async function urlSource(options: ExportCommandOptions, globals: GlobalOptions): Promise<Source> {
  const env = options.env ? { ...process.env, AGENTFORM_ENVIRONMENT: options.env } : process.env;
  const connected = await openDirect(globals, env, { announce: (line) => process.stderr.write(line) });
  const slug = connected.environment ?? options.env;
  if (!slug) {
    await connected.close();
    throw new UserError('which environment? pass -e/--env', 'the credential does not name one (a cookie session needs AGENTFORM_ENVIRONMENT or -e)');
  }
  if (options.env && options.env !== slug) {
    await connected.close();
    throw new UserError(`the key is for environment ${slug}, not ${options.env}`, 'a key for one environment must never act on another');
  }
  const url = (globals.url ?? process.env.AGENTFORM_URL) as string;
  const token = globals.token ?? process.env.AGENTFORM_TOKEN;
  return { caller: connected.client, target: { name: environmentNameFor(slug), slug, url }, ...(token ? { token } : {}), close: () => connected.close() };
}

async function assertWritable(outDir: string, force: boolean): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(outDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') throw new UserError(`--out ${outDir} is a file, not a directory`);
    throw error;
  }
  if (entries.length > 0 && !force) {
    throw new UserError(
      `--out ${relative(process.cwd(), outDir) || '.'} is not empty`,
      'choose an empty or new directory, or pass --force to overwrite files of the same name',
    );
  }
}

/** Environment id → agentform name, for "promoted from"; best effort (environments.list is assumed). */
async function environmentNames(caller: RpcCaller): Promise<Map<string, string>> {
  try {
    const list = await caller.call('environments.list', {});
    return new Map(list.map((environment) => [environment.id, environment.slug]));
  } catch {
    return new Map();
  }
}

/**
 * The key that authenticates this run: exporting it would declare the CI's own credential. Keys
 * are matched by their visible prefix, which only identifies a key when it reaches into the
 * secret part (`svc_<env>_` alone is shared by every key of the environment) and when exactly
 * one key matches; otherwise nothing is skipped.
 */
function ownKeyIds(actual: ActualState, token: string | undefined): Set<string> {
  if (!token) return new Set();
  const environmentPart = token.slice(0, token.indexOf('_', 'svc_'.length) + 1);
  const matches = actual.resources.filter((resource) => {
    const prefix = resource.remote.prefix;
    return resource.kind === 'apiKey' && typeof prefix === 'string' && prefix.length > environmentPart.length && token.startsWith(prefix);
  });
  return new Set(matches.length === 1 ? [(matches[0] as ActualResource).id] : []);
}

export async function runExport(options: ExportCommandOptions, globals: GlobalOptions): Promise<void> {
  const outDir = resolve(options.out as string);
  await assertWritable(outDir, options.force === true);
  const projectDir = resolve(options.dir ?? '.');
  const source = existsSync(join(projectDir, 'agentform.yaml')) ? await projectSource(projectDir, options, globals) : await urlSource(options, globals);
  let result: ExportResult;
  try {
    const [actual, names] = await Promise.all([readActualState(source.caller, source.target.slug), environmentNames(source.caller)]);
    result = exportEnvironment({
      target: source.target,
      actual,
      skipApiKeyIds: ownKeyIds(actual, source.token),
      environmentNames: names,
      schemas: specSchemas() as ExportSchemas,
    });
  } finally {
    await source.close();
  }
  // The schemas the files' modelines point at, and the editor mapping: completion works offline.
  const files = [...result.files, ...schemaFiles(), vscodeSettings()];
  for (const file of files) await writeFileAtomic(join(outDir, ...file.path.split('/')), file.content);
  const outLabel = relative(process.cwd(), outDir) || '.';
  process.stdout.write(`${renderExportSummary(result, source.target, { outLabel, schemasDir: join(outLabel, PROJECT_SCHEMAS_DIR) })}\n`);
}
