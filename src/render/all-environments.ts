// `plan --all-envs`: one summary row per environment, after each environment's plan.
import { changeCount, type Plan } from '../model/resources.js';
import type { SafetyReview } from '../model/safety.js';
import { safetyToJson } from './safety.js';
import { renderTable } from './table.js';

export interface EnvironmentOutcome {
  environment: string;
  plan?: Plan;
  /** The environment's safety review (policy findings, capability changes). */
  safety?: SafetyReview;
  error?: string;
}

/** The policy column: `ok`, or the counts of errors and warnings. */
export function policyCell(safety: SafetyReview | undefined): string {
  if (!safety) return '-';
  const { errors, warnings } = safety.counts;
  return errors + warnings === 0
    ? 'ok'
    : [errors > 0 ? `${errors} error${errors === 1 ? '' : 's'}` : '', warnings > 0 ? `${warnings} warning${warnings === 1 ? '' : 's'}` : '']
        .filter(Boolean)
        .join(', ');
}

export function renderAllEnvironmentsSummary(outcomes: readonly EnvironmentOutcome[]): string {
  // An ADOPT column only when some environment adopts: every other summary keeps its table.
  const adopts = outcomes.some((outcome) => (outcome.plan?.summary.adopt ?? 0) > 0);
  const rows = outcomes.map((outcome) => {
    if (!outcome.plan) {
      return [outcome.environment, '-', '-', ...(adopts ? ['-'] : []), '-', '-', '-', `error: ${outcome.error ?? ''}`.split('\n')[0] ?? ''];
    }
    const { add, change, adopt, replace, destroy } = outcome.plan.summary;
    return [
      outcome.environment,
      String(add),
      String(change),
      ...(adopts ? [String(adopt)] : []),
      String(replace),
      String(destroy),
      policyCell(outcome.safety),
      changeCount(outcome.plan) === 0 ? 'no changes' : 'changes',
    ];
  });
  const headings = ['ENVIRONMENT', 'ADD', 'CHANGE', ...(adopts ? ['ADOPT'] : []), 'REPLACE', 'DESTROY', 'POLICY', 'STATUS'];
  return `Summary:\n${renderTable(headings, rows)}`;
}

export function renderAllEnvironmentsJson(outcomes: readonly EnvironmentOutcome[]): string {
  return JSON.stringify(
    {
      environments: outcomes.map((outcome) => ({
        environment: outcome.environment,
        ...(outcome.plan ? { plan: outcome.plan } : { error: outcome.error }),
        ...(outcome.safety ? { safety: safetyToJson(outcome.safety) } : {}),
      })),
    },
    null,
    2,
  );
}
