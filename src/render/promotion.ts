// One step of `agentform promote`: its plan, the fields the target's overlay kept, and why a step
// writes nothing. Ends with a newline per line, as the command prints it.
import type { PromotionStep } from '../promotion/promote.js';
import type { AgentCapabilityDiff } from '../model/safety.js';
import { paletteFor } from './palette.js';
import { renderCapabilityChangesText } from './safety.js';
import { renderPlanText } from './text.js';
import { formatValue } from './values.js';

export function renderPromotionStep(
  step: PromotionStep,
  context: { from: string; to: string; color: boolean; capabilities?: readonly AgentCapabilityDiff[] },
): string {
  const { from, to } = context;
  const lines = [renderPlanText(step.plan, { color: context.color })];
  // What the agent will be able to do in the target, against its latest version there.
  if (context.capabilities) lines.push(...renderCapabilityChangesText(context.capabilities, paletteFor(context.color)));
  for (const field of step.kept) {
    const sourceSide = field.sourceValue === undefined ? 'not set' : formatValue(field.sourceValue);
    lines.push(`Kept ${to}'s ${field.path} = ${formatValue(field.value)} (set by its overlay; ${from} v${step.from.version} has ${sourceSide})`);
  }
  if (step.outcome === 'no-op') lines.push(`${step.slug}: ${to} v${step.latest?.version} already came from ${from} v${step.from.version}; nothing to do.`);
  if (step.outcome === 'matches-without-provenance') {
    lines.push(`${step.slug}: ${to} v${step.latest?.version} already has this definition; the server makes no new version for it, so nothing is written.`);
  }
  return lines.map((line) => `${line}\n`).join('');
}
