// `plan --all-envs`: one summary row per environment, after each environment's plan.
import type { Plan } from '../model/resources.js';
import { renderTable } from './table.js';

export interface EnvironmentOutcome {
  environment: string;
  plan?: Plan;
  error?: string;
}

export function renderAllEnvironmentsSummary(outcomes: readonly EnvironmentOutcome[]): string {
  const rows = outcomes.map((outcome) => {
    if (!outcome.plan) return [outcome.environment, '-', '-', '-', '-', `error: ${outcome.error ?? ''}`.split('\n')[0] ?? ''];
    const { add, change, replace, destroy } = outcome.plan.summary;
    return [outcome.environment, String(add), String(change), String(replace), String(destroy), add + change + replace + destroy === 0 ? 'no changes' : 'changes'];
  });
  return `Summary:\n${renderTable(['ENVIRONMENT', 'ADD', 'CHANGE', 'REPLACE', 'DESTROY', 'STATUS'], rows)}`;
}

export function renderAllEnvironmentsJson(outcomes: readonly EnvironmentOutcome[]): string {
  return JSON.stringify({ environments: outcomes.map((outcome) => ({ environment: outcome.environment, ...(outcome.plan ? { plan: outcome.plan } : { error: outcome.error }) })) }, null, 2);
}
