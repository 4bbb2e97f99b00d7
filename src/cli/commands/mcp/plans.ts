// The plan and apply tools, and the plans this MCP session saved: apply takes only those (by id),
// so an agent applies exactly what it was shown. Each is applied through `agentform apply <plan>`'s
// own code (runApply: staleness, policy review, preflight, lock gate), with its console captured.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { savePlan, type SavedPlan } from '../../../apply/saved-plan.js';
import { loadProject } from '../../../config/index.js';
import { UserError } from '../../../errors.js';
import { changeCount } from '../../../model/resources.js';
import { planSession } from '../../../pipeline/plan.js';
import { openSession, runContext } from '../../../pipeline/session.js';
import { renderPlanAs } from '../../../render/plan-formats.js';
import { findingsApplyRefuses, reviewPlan } from '../../../safety/index.js';
import type { GlobalOptions } from '../../global-options.js';
import { runApply } from '../apply/run.js';
import { errorResult, textResult } from './results.js';

/** `production`, or a near miss of it (which validate refuses anyway): never applied from MCP. */
export function isProductionKind(kind: unknown): boolean {
  if (typeof kind !== 'string') return false;
  const normalized = kind.trim().toLowerCase();
  return normalized === 'prd' || normalized.startsWith('prod');
}

export class SessionPlans {
  private readonly saved = new Map<string, SavedPlan>();

  constructor(
    private readonly projectDir: string,
    private readonly globals: GlobalOptions,
  ) {}

  /** The plan tool: the plan JSON as `plan --json [--changes-only]` prints it, then its planId. */
  async plan(environment: string | undefined, full: boolean, allowApply: boolean): Promise<CallToolResult> {
    const session = await openSession({ dir: this.projectDir, ...(environment ? { environment } : {}), readAhead: true }, runContext(this.globals));
    try {
      const run = await planSession(session);
      const safety = await reviewPlan(run);
      const json = renderPlanAs('json', run.plan, { target: session.targetLabel, color: false, safety, ...(full ? {} : { changesOnly: true }) });
      const planId = randomUUID();
      this.saved.set(planId, savePlan(run.plan, run.planned.desired, run.planned.actual, run.desired.projectDir));
      const changes = changeCount(run.plan);
      // Apply refuses on policy before it looks at the changes: so does the advice (plan's exit code too).
      const policyErrors = findingsApplyRefuses(safety).length;
      const next = !allowApply
        ? 'this server offers no apply tool (start it with --allow-apply)'
        : isProductionKind(session.project.environments[run.desired.target.name]?.settings?.kind)
          ? 'the apply tool refuses this environment: its kind is production'
          : policyErrors > 0
            ? `the apply tool would refuse this plan: ${policyErrors} policy error${policyErrors === 1 ? '' : 's'} (safety.findings)`
            : changes === 0
              ? 'nothing to apply'
              : 'apply it with the apply tool and this planId';
      return textResult(json, JSON.stringify({ planId, environment: run.desired.target.name, changes, next }));
    } finally {
      await session.close();
    }
  }

  /** The apply tool: the saved plan `planId`, unless its environment is of kind production. */
  async apply(planId: string): Promise<CallToolResult> {
    const saved = this.saved.get(planId);
    if (!saved) return errorResult(new UserError(`no plan ${planId} in this session`, 'call the plan tool first and pass the planId it returns'));
    const stdout: string[] = [];
    const stderr: string[] = [];
    const dir = await mkdtemp(join(tmpdir(), 'agentform-mcp-'));
    try {
      // Read again now, not at plan time: the kind in the files as they are when the write happens.
      const project = await loadProject(this.projectDir, { environment: saved.environment });
      if (isProductionKind(project.environments[saved.environment]?.settings?.kind)) {
        throw new UserError(`refusing to apply to ${saved.environment}: its kind is production`, 'production is applied by people, with `agentform apply`');
      }
      const file = join(dir, 'plan.json');
      await writeFile(file, `${JSON.stringify(saved)}\n`, { mode: 0o600 });
      // A plan is applied once: a second apply of the same id would only be refused as stale.
      this.saved.delete(planId);
      const streams = { stdout: { write: (text: string) => stdout.push(text) }, stderr: { write: (text: string) => stderr.push(text) } };
      await runApply(file, { parallelism: '8', json: true }, this.globals, streams);
      return textResult(stdout.join(''));
    } catch (error) {
      return errorResult(error, stdout.join(''), stderr.join(''));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
