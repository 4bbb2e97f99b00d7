// Shared by the pull-request comment tests: a plan far over the comment's size limit, and a check
// that what a cut left still renders (every fence and <details> closed).
import { computePlan } from '../../src/engine/plan.js';
import type { Plan } from '../../src/model/resources.js';
import { actualState, actual, agentSpec, desired, desiredState } from '../engine/builders.js';

/** Every fence opened is closed and every <details> closed: what GitHub needs to render the rest. */
export function balanced(markdown: string): { fence?: string; details: number } {
  let fence: string | undefined;
  let details = 0;
  for (const line of markdown.split('\n')) {
    if (fence) {
      const run = /^(`+)\s*$/.exec(line)?.[1];
      if (run && run.length >= fence.length) fence = undefined;
      continue;
    }
    const open = /^(`{3,})/.exec(line)?.[1];
    if (open) fence = open;
    details += (line.match(/<details\b/g) ?? []).length - (line.match(/<\/details>/g) ?? []).length;
  }
  return { ...(fence ? { fence } : {}), details };
}

/** A plan of `count` agents whose long prompts all change: its comment is far over any limit. */
export function hugePlan(count: number): Plan {
  const prompt = (word: string) => Array.from({ length: 40 }, (_, line) => `${word} line ${line}: answer the customer's question in full.`).join('\n');
  const names = Array.from({ length: count }, (_, index) => `agent-${String(index).padStart(3, '0')}`);
  return computePlan(
    desiredState(names.map((name) => desired('agent', name, agentSpec('gpt-4o', `${prompt('new')}\n`)))),
    actualState(names.map((name) => actual('agent', name, agentSpec('gpt-4o', `${prompt('old')}\n`)))),
    { prune: false },
  );
}
