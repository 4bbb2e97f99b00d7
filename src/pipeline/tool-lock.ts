// The tool-surface lock in plan and apply: the lock file (config/) and the live check (apply/) meet
// here, so that the apply and plan commands need one call each.
import { checkSurfaces, connectionIds, isScopeError, toolLockGate, type ToolLockGate } from '../apply/tool-lock-check.js';
import { readToolLock, writeToolLock } from '../config/tool-lock-file.js';
import type { RpcCaller } from '../api/operations.js';
import { connectionsOfChangedAgents, surfaceDiffers, type SurfaceDiff, type ToolSurfaceReport } from '../engine/tool-surface.js';
import { changeCount, type ActualState, type DesiredState, type Plan } from '../model/resources.js';

interface RunFacts {
  plan: Plan;
  desired: DesiredState;
  actual: ActualState;
  /** The scopes of the key in use when known. */
  credentialScopes?: readonly string[];
}

/**
 * apply: check the connections changed agents use against agentform.lock.yaml (throws to refuse).
 * `say`: where its lines for the person running apply go (default: stderr, as they come).
 */
export async function applyToolLockGate(
  client: RpcCaller,
  run: RunFacts,
  plan: Plan,
  updateLock: boolean,
  renderDiff: (connection: string, diff: SurfaceDiff) => string,
  say: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  command: 'apply' | 'promote' | 'roll back' = 'apply',
): Promise<ToolLockGate> {
  const projectDir = run.desired.projectDir;
  // No changed agent uses a connection: no tool server is asked (the check costs a round trip to
  // each server, and an unreachable one must not block an apply it has nothing to do with).
  const used = connectionsOfChangedAgents(plan, run.desired);
  if (used.existing.length === 0 && used.created.length === 0) return { finish: async () => undefined };
  return toolLockGate({
    client,
    plan,
    desired: run.desired,
    actual: run.actual,
    lock: await readToolLock(projectDir),
    updateLock,
    save: (lock) => writeToolLock(projectDir, lock),
    say,
    renderDiff,
    command,
  });
}

const NOT_CONTROL = 'the API key has no control scope, which connections.test needs; run it with a control key to check';

/**
 * `plan --check-tools`: every declared connection that exists and has a lock entry is read and
 * compared; with a read-only key nothing is read and the report says the surface was not checked.
 */
export async function planToolSurfaceReport(client: RpcCaller, run: RunFacts): Promise<ToolSurfaceReport> {
  if (run.credentialScopes && !run.credentialScopes.includes('control')) return { checked: false, reason: NOT_CONTROL };
  const lock = await readToolLock(run.desired.projectDir);
  const declared = run.desired.resources.filter((resource) => resource.kind === 'connection').map((resource) => resource.name);
  try {
    return {
      checked: true,
      connections: await checkSurfaces(client, lock, run.desired.target.name, declared, connectionIds(run.actual), { readUnlocked: false }),
    };
  } catch (error) {
    if (isScopeError(error)) return { checked: false, reason: NOT_CONTROL };
    throw error;
  }
}

/**
 * The exit code `plan --check-tools` adds: a surface that differs from the lock is drift from what
 * Git records, so 2 under --detailed-exitcode (where 1 means the run failed) and 1 otherwise (an
 * explicitly requested check failed); a surface that cannot be read is a failed run, 1. 0: nothing.
 */
export function toolSurfaceExitCode(report: ToolSurfaceReport, detailedExitcode: boolean): number {
  if (report.checked && report.connections.some((check) => check.status === 'unreadable')) return 1;
  if (surfaceDiffers(report)) return detailedExitcode ? 2 : 1;
  return 0;
}

/** The plan's exit code: --detailed-exitcode's 2 for changes, combined with --check-tools' (toolSurfaceExitCode). */
export function planExitCode(plan: Plan, toolSurface: ToolSurfaceReport | undefined, detailedExitcode: boolean): number {
  const tools = toolSurface ? toolSurfaceExitCode(toolSurface, detailedExitcode) : 0;
  if (tools === 1) return 1;
  return tools === 2 || (detailedExitcode && changeCount(plan) > 0) ? 2 : 0;
}
