// The apply command: reads the command line and a saved plan, opens the session (which sends the
// reads), then runs the rest (finish.ts) loaded while they are on the wire.
import { monotonicMs } from '../../../util/clock.js';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseSavedPlan, type SavedPlan } from '../../../apply/saved-plan.js';
import { UserError } from '../../../errors.js';
import { changeCount, type ResourceAddress } from '../../../model/resources.js';
import type { GlobalOptions } from '../../global-options.js';
import type { PlanInputs } from '../../../pipeline/plan.js';
import { openSession, runContext } from '../../../pipeline/session.js';
import type { ApplyCommandOptions } from './options.js';
import type { ConsoleStreams } from './write-log.js';
import { breakGlassRequest, nowOf } from '../../break-glass.js';

// Synchronous on purpose (and isFile below): one small file is read before anything is sent, and
// node:fs/promises, slow to load, is left to the writers that need it, after the reads.
function readSavedPlan(path: string): SavedPlan {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UserError(`cannot read the saved plan ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UserError(`${path} is not JSON: is it a plan saved with \`agentform plan --out\`?`);
  }
  const saved = parseSavedPlan(parsed);
  if (typeof saved === 'string') throw new UserError(`${path}: ${saved}`);
  return saved;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** `streams`: where the apply console writes instead of stdout and stderr (the MCP `apply` tool). */
export async function runApply(dirOrPlan: string, options: ApplyCommandOptions, globals: GlobalOptions, streams?: ConsoleStreams): Promise<void> {
  const startedAt = monotonicMs();
  const parallelism = Number(options.parallelism);
  if (!Number.isInteger(parallelism) || parallelism < 1 || parallelism > 256) {
    throw new UserError(`--parallelism must be a whole number from 1 to 256, not ${options.parallelism}`);
  }
  const maxRequestBytesOption = options.maxRequestBytes === undefined ? undefined : Number(options.maxRequestBytes);
  if (maxRequestBytesOption !== undefined && (!Number.isInteger(maxRequestBytesOption) || maxRequestBytesOption < 1024)) {
    throw new UserError(`--max-request-bytes must be a whole number of bytes, at least 1024, not ${options.maxRequestBytes}`);
  }
  const breakGlass = breakGlassRequest(options.breakGlass, process.env);
  if (dirOrPlan.endsWith('.json') && !isFile(dirOrPlan)) {
    throw new UserError(`no saved plan ${dirOrPlan}`, 'save one with `agentform plan --out <file>`, or name a project directory');
  }
  const saved = isFile(dirOrPlan) ? readSavedPlan(dirOrPlan) : undefined;
  const environment = saved ? saved.environment : options.env;
  const inputs: PlanInputs = {
    ...(options.prune ? { prune: true } : {}),
    ...(options.allowMassDelete ? { allowMassDelete: true } : {}),
    ...(options.target ? { targets: options.target as ResourceAddress[] } : {}),
    ...(options.exclude ? { excludes: options.exclude } : {}),
    ...(options.base !== undefined ? { base: options.base } : {}),
  };
  if (saved && options.exclude) {
    throw new UserError('a saved plan applies with the --exclude it was made with: pass --exclude to `agentform plan --out` instead');
  }
  if (saved && options.base !== undefined) {
    throw new UserError('a saved plan applies the adoptions it was made with: pass --base to `agentform plan --out` instead');
  }
  if (saved && options.env && options.env !== saved.environment) {
    throw new UserError(`the saved plan is for environment ${saved.environment}, not ${options.env}`);
  }
  const session = await openSession(
    { dir: resolve(saved ? saved.projectDir : dirOrPlan), ...(environment ? { environment } : {}), readAhead: true },
    runContext(globals),
  );
  try {
    // With no question to ask, the connections of the first --parallelism writes are opened now,
    // while the reads are on the wire and the plan is made, not when the writes go out: over TLS a
    // new connection costs two round trips (TCP, then TLS) before its first request, and a Node.js
    // server (the local control plane) accepts one connection per turn of its event loop. The
    // reads' 8 connections count, so this opens some only above --parallelism 8. A saved plan says
    // how many writes it has; a fresh one may turn out to have none, and then they are closed
    // unused (as they are when the run fails before writing, or leaves them idle for 4 s).
    const writes = saved ? changeCount(saved.plan) : parallelism;
    if (saved !== undefined || options.autoApprove === true) session.client.preconnect(Math.min(parallelism, writes));
    // Loaded once the session's reads are on the wire, as plan does. The bundle is CommonJS, so
    // import() is a require in the next microtask: started before openSession, its loading ran
    // before the reads were sent and delayed them.
    const { finishApply } = await import('./finish.js');
    await finishApply(
      session,
      {
        saved,
        inputs,
        parallelism,
        maxRequestBytes: maxRequestBytesOption,
        startedAt,
        ...(streams ? { streams } : {}),
        ...(breakGlass ? { breakGlass } : {}),
        now: () => nowOf(process.env),
      },
      options,
      globals,
    );
  } finally {
    await session.close();
  }
}
