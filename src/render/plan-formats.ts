// The plan's output formats, looked up by name: one renderer per format. Each renders the plan and,
// when the run produced them, the safety review (policy findings, capability changes) and the
// `--check-tools` comparison of tool surfaces with agentform.lock.yaml.
import type { ToolSurfaceReport } from '../engine/tool-surface.js';
import type { CapabilityTestReport } from '../model/capability-test.js';
import { renderCapabilityTestsMarkdown, renderCapabilityTestsSection } from './capability-tests.js';
import type { Plan } from '../model/resources.js';
import type { SafetyReview } from '../model/safety.js';
import { renderPlanJson } from './json.js';
import { renderPlanMarkdown } from './markdown.js';
import { paletteFor } from './palette.js';
import { renderSafetyText } from './safety.js';
import { renderPlanText } from './text.js';
import { renderToolSurfaceReport } from './tool-surface.js';
import type { OpenWindow } from '../engine/change-windows.js';
import { changeWindowsJson, changeWindowsMarkdown, changeWindowsText } from './change-windows.js';
import { destroyBanner, renderPlanComment } from './pr-comment.js';

export type PlanFormat = 'text' | 'json' | 'markdown';

export interface PlanRenderContext {
  /** LOCAL_LABEL or the URL the plan was read from. */
  target: string;
  color: boolean;
  /** Policy findings and capability changes of what apply would leave. */
  safety?: SafetyReview;
  /** `plan --check-tools`: the live tool surfaces compared with the lock. */
  toolSurface?: ToolSurfaceReport;
  /** JSON only (`plan --json --changes-only`): leave out the resources apply does not touch. */
  changesOnly?: boolean;
  /** The capability tests (*.test.yaml) checked against this environment, when the project has some. */
  capabilityTests?: CapabilityTestReport;
  /** The change windows of the environment open now: an apply now would be refused. */
  openChangeWindows?: readonly OpenWindow[];
  /** Markdown only: where the full plan is, named when the comment is cut to fit (`--markdown-link`). */
  markdownLink?: string;
  /** Markdown only: the file the whole comment is also written to (`--markdown-full`), named when cut and no link is given. */
  markdownFull?: string;
}

function textOf(plan: Plan, context: PlanRenderContext): string {
  const palette = paletteFor(context.color);
  const safety = context.safety ? `\n\n${renderSafetyText(context.safety, palette)}` : '';
  const tools = context.toolSurface ? `\n\n${renderToolSurfaceReport(context.toolSurface, palette)}` : '';
  const tests = context.capabilityTests ? `\n\n${renderCapabilityTestsSection(context.capabilityTests, palette)}` : '';
  const windows = changeWindowsText(plan.environment, context.openChangeWindows ?? [], palette);
  return `${renderPlanText(plan, { color: context.color })}${safety}${tools}${tests}${windows.length > 0 ? `\n\n${windows.join('\n')}` : ''}`;
}

/** One environment's part of the comment (also the CI job summary, which has no size cut). */
export function renderPlanMarkdownSection(plan: Plan, context: PlanRenderContext): string {
  const tools = context.toolSurface ? `\n\n### Tool surface\n\n\`\`\`text\n${renderToolSurfaceReport(context.toolSurface)}\n\`\`\`\n` : '';
  const tests = context.capabilityTests ? `\n\n${renderCapabilityTestsMarkdown(context.capabilityTests)}` : '';
  const banner = [...destroyBanner(plan), ...changeWindowsMarkdown(plan.environment, context.openChangeWindows ?? [])];
  return `${renderPlanMarkdown(plan, { target: context.target, graph: true, ...(context.safety ? { safety: context.safety } : {}), ...(banner.length > 0 ? { banner } : {}) })}${tools}${tests}`;
}

export const PLAN_FORMATS: Readonly<Record<PlanFormat, (plan: Plan, context: PlanRenderContext) => string>> = {
  text: textOf,
  json: (plan, context) =>
    renderPlanJson(plan, {
      target: context.target,
      ...(context.safety ? { safety: context.safety } : {}),
      ...(context.toolSurface ? { toolSurface: context.toolSurface } : {}),
      ...(context.changesOnly ? { changesOnly: true } : {}),
      ...(context.capabilityTests ? { capabilityTests: context.capabilityTests } : {}),
      ...(context.openChangeWindows && context.openChangeWindows.length > 0 ? { openChangeWindows: changeWindowsJson(context.openChangeWindows) } : {}),
    }),
  markdown: (plan, context) =>
    renderPlanComment(plan.environment, renderPlanMarkdownSection(plan, context), {
      ...(context.markdownLink ? { link: context.markdownLink } : {}),
      ...(context.markdownFull ? { artifact: context.markdownFull } : {}),
    }),
};

/** The format plan's flags ask for: --json wins over --markdown, text otherwise. */
export function planFormatOf(flags: { json?: boolean; markdown?: boolean }): PlanFormat {
  return flags.json ? 'json' : flags.markdown ? 'markdown' : 'text';
}

export function renderPlanAs(format: PlanFormat, plan: Plan, context: PlanRenderContext): string {
  return PLAN_FORMATS[format](plan, context);
}
