// The plan's output formats, looked up by name: one renderer per format.
import type { Plan } from '../model/resources.js';
import { renderPlanJson } from './json.js';
import { renderPlanMarkdown } from './markdown.js';
import { renderPlanText } from './text.js';

export type PlanFormat = 'text' | 'json' | 'markdown';

export interface PlanRenderContext {
  /** LOCAL_LABEL or the URL the plan was read from. */
  target: string;
  color: boolean;
}

export const PLAN_FORMATS: Readonly<Record<PlanFormat, (plan: Plan, context: PlanRenderContext) => string>> = {
  text: (plan, context) => renderPlanText(plan, { color: context.color }),
  json: (plan, context) => renderPlanJson(plan, { target: context.target }),
  markdown: (plan, context) => renderPlanMarkdown(plan, { target: context.target, graph: true }),
};

/** The format plan's flags ask for: --json wins over --markdown, text otherwise. */
export function planFormatOf(flags: { json?: boolean; markdown?: boolean }): PlanFormat {
  return flags.json ? 'json' : flags.markdown ? 'markdown' : 'text';
}

export function renderPlanAs(format: PlanFormat, plan: Plan, context: PlanRenderContext): string {
  return PLAN_FORMATS[format](plan, context);
}
