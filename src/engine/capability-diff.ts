// Capability changes per agent, before (what the server runs) vs after (what the configuration
// wants): a tool newly reachable, no longer reachable, or reachable under another decision or
// effect. Pure; renderers are in src/render/safety.ts.
import type { AgentCapabilities, AgentCapabilityDiff, Capability, CapabilityChange } from '../model/safety.js';

export type { AgentCapabilityDiff, CapabilityChange } from '../model/safety.js';

const keyOf = (capability: Pick<Capability, 'tool' | 'via'>) => `${capability.via.join('>')}|${capability.tool}`;

/** The capability changes of one agent; `before`/`after` undefined when it does not exist on that side. */
export function diffAgentCapabilities(
  agent: string,
  before: AgentCapabilities | undefined,
  after: AgentCapabilities | undefined,
): AgentCapabilityDiff | undefined {
  // The same list on both sides (the usual case: an agent the plan leaves alone) has no change.
  if (before && after && sameCapabilities(before.capabilities, after.capabilities)) return undefined;
  const beforeByKey = new Map((before?.capabilities ?? []).map((capability) => [keyOf(capability), capability]));
  const afterByKey = new Map((after?.capabilities ?? []).map((capability) => [keyOf(capability), capability]));
  const changes: CapabilityChange[] = [];
  for (const [key, next] of afterByKey) {
    const previous = beforeByKey.get(key);
    const note = next.note !== undefined ? { note: next.note } : {};
    if (!previous) changes.push({ change: 'added', tool: next.tool, via: next.via, after: { decision: next.decision, effect: next.effect }, ...note });
    else if (previous.decision !== next.decision || previous.effect !== next.effect) {
      changes.push({
        change: 'changed',
        tool: next.tool,
        via: next.via,
        before: { decision: previous.decision, effect: previous.effect },
        after: { decision: next.decision, effect: next.effect },
        ...note,
      });
    }
  }
  for (const [key, previous] of beforeByKey) {
    if (!afterByKey.has(key))
      changes.push({ change: 'removed', tool: previous.tool, via: previous.via, before: { decision: previous.decision, effect: previous.effect } });
  }
  if (changes.length === 0 && before && after) return undefined;
  if (!before && !after) return undefined;
  // The agent's own tools first, then each subagent's, as in its capability list.
  const order = (change: CapabilityChange) => `${change.via.join('\u0000')}\u0001${change.tool}`;
  changes.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  const shown = after ?? before;
  return {
    agent,
    status: !before ? 'created' : !after ? 'deleted' : 'changed',
    changes,
    capabilities: shown?.capabilities ?? [],
    unknownConnections: shown?.unknownConnections ?? [],
  };
}

/** Element by element: same tool, chain, decision and effect (the note is not compared, as below). */
function sameCapabilities(before: readonly Capability[], after: readonly Capability[]): boolean {
  if (before.length !== after.length) return false;
  for (let index = 0; index < before.length; index++) {
    const a = before[index] as Capability;
    const b = after[index] as Capability;
    if (a.tool !== b.tool || a.decision !== b.decision || a.effect !== b.effect || a.via.length !== b.via.length) return false;
    for (let step = 0; step < a.via.length; step++) if (a.via[step] !== b.via[step]) return false;
  }
  return true;
}

/** Every agent whose capabilities change, sorted by name. */
export function diffCapabilities(before: ReadonlyMap<string, AgentCapabilities>, after: ReadonlyMap<string, AgentCapabilities>): AgentCapabilityDiff[] {
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  return names.flatMap((name) => {
    const diff = diffAgentCapabilities(name, before.get(name), after.get(name));
    return diff ? [diff] : [];
  });
}
