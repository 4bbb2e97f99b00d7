// The options of `agentform plan`, shared by its registration (index.ts) and its run modules.
import type { ResourceAddress } from '../../../model/resources.js';
import type { PlanInputs } from '../../../pipeline/plan.js';
import type { FullPlanAt } from '../../../render/pr-comment.js';

export interface PlanCommandOptions {
  /** -C/--dir: the project directory, when not given as the argument. */
  dir?: string;
  env?: string;
  json?: boolean;
  changesOnly?: boolean;
  markdown?: boolean;
  markdownLink?: string;
  /** --markdown-full FILE: the whole comment, uncut, also written to FILE. */
  markdownFull?: string;
  out?: string;
  detailedExitcode?: boolean;
  prune?: boolean;
  allowMassDelete?: boolean;
  target?: string[];
  exclude?: string[];
  base?: string;
  /** --all-envs: every environment in turn. */
  allEnvs?: boolean;
  /** --envs a,b: these environments, in this order (--all-envs limited to them). */
  envs?: string;
  checkTools?: boolean;
}

/** How to plan, from plan's flags (shared with --all-envs). */
export function planInputsOf(options: Pick<PlanCommandOptions, 'prune' | 'allowMassDelete' | 'target' | 'exclude' | 'base'>): PlanInputs {
  return {
    ...(options.prune ? { prune: true } : {}),
    ...(options.allowMassDelete ? { allowMassDelete: true } : {}),
    ...(options.target ? { targets: options.target as ResourceAddress[] } : {}),
    ...(options.exclude ? { excludes: options.exclude } : {}),
    ...(options.base !== undefined ? { base: options.base } : {}),
  };
}

/** Where the full plan is, for a cut comment: --markdown-link, else AGENTFORM_MARKDOWN_LINK. */
export function markdownLinkOf(options: Pick<PlanCommandOptions, 'markdownLink'>, env: NodeJS.ProcessEnv): string | undefined {
  return options.markdownLink || env.AGENTFORM_MARKDOWN_LINK || undefined;
}

/** Where a cut comment says the full plan is: the link first, else the --markdown-full file (a CI artifact). */
export function fullPlanAtOf(options: Pick<PlanCommandOptions, 'markdownLink' | 'markdownFull'>, env: NodeJS.ProcessEnv): FullPlanAt {
  const link = markdownLinkOf(options, env);
  return { ...(link ? { link } : {}), ...(options.markdownFull ? { artifact: options.markdownFull } : {}) };
}
