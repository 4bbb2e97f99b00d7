// Rules about who decides a tool call: destructive tools without a decision, a default of allow
// with no hook, hooks that fail open, decisions that expire into anything but deny.
import type { JsonObject } from '../../model/resources.js';
import { resourceRule } from './types.js';
import { isObject, objectAt, valueAt } from './spec-access.js';

const hasHook = (spec: JsonObject) => valueAt(spec, ['policies', 'toolCalls', 'hook', 'connection']) !== undefined;

export const destructiveToolWithoutDecision = resourceRule('agent', {
  id: 'destructive-tool-without-decision',
  rationale: 'A tool that may destroy (or whose annotations do not say it cannot) should wait for a hook or human decision.',
  check: (agent, context) =>
    (context.capabilities.get(agent.name)?.capabilities ?? [])
      .filter((capability) => capability.via.length === 0 && capability.decision === 'allowed' && (capability.effect === 'destructive' || capability.effect === 'unknown'))
      .map((capability) => ({
        path: ['policies', 'toolCalls'],
        message: `${capability.tool} (${capability.effect === 'unknown' ? 'effect unknown, so assumed destructive' : 'destructive'}) runs without a decision: add a hook, or set policies.toolCalls.byTool to deny or ask`,
      })),
});

export const defaultAllowWithoutHook = resourceRule('agent', {
  id: 'default-allow-without-hook',
  rationale: 'policies.toolCalls.default: allow with no hook lets every tool run unchecked, including tools a server adds later.',
  check: (agent) =>
    valueAt(agent.spec, ['policies', 'toolCalls', 'default']) === 'allow' && !hasHook(agent.spec)
      ? [{ path: ['policies', 'toolCalls', 'default'], message: 'policies.toolCalls.default is allow and no hook decides: every tool call runs unchecked' }]
      : [],
});

export const hookFailsOpen = resourceRule('agent', {
  id: 'hook-fails-open',
  rationale: 'A hook that allows the call when it errors or times out is bypassed by making it fail.',
  check: (agent) => {
    // Without a hook there is nothing to fail: the other rules judge the decisions then.
    if (!hasHook(agent.spec)) return [];
    const toolCalls = objectAt(agent.spec, ['policies', 'toolCalls']) ?? {};
    return (['onError', 'onTimeout'] as const)
      .filter((field) => toolCalls[field] === 'allow')
      .map((field) => ({ path: ['policies', 'toolCalls', field], message: `policies.toolCalls.${field} is allow: the hook fails open` }));
  },
});

/** A call may wait for a decision: a hook decides, or a decision other than allow/deny (e.g. ask) is configured. */
function mayWaitForDecision(spec: JsonObject): boolean {
  if (hasHook(spec)) return true;
  const toolCalls = objectAt(spec, ['policies', 'toolCalls']) ?? {};
  const byTool = isObject(toolCalls.byTool) ? Object.values(toolCalls.byTool) : [];
  return [toolCalls.default, ...byTool].some((decision) => typeof decision === 'string' && decision !== 'allow' && decision !== 'deny');
}

export const decisionExpiryAllows = resourceRule('agent', {
  id: 'decision-expiry-not-deny',
  rationale: 'A pending decision nobody answers should be refused, not carried out.',
  check: (agent) => {
    const onExpire = valueAt(agent.spec, ['policies', 'decisions', 'onExpire']);
    if (onExpire === undefined || onExpire === null || onExpire === 'deny' || !mayWaitForDecision(agent.spec)) return [];
    return [{ path: ['policies', 'decisions', 'onExpire'], message: `policies.decisions.onExpire is ${JSON.stringify(onExpire)}: an unanswered decision should expire into deny` }];
  },
});
