// Rules about who decides a tool call: destructive tools without a decision, a default of allow
// with no hook, hooks that fail open, decisions that expire into anything but deny. A field the
// configuration leaves to the server is unknown (the API does not show its default) and judged as
// its worst value, so the verdict is the same before the first apply and after it.
import type { JsonObject } from '../../model/resources.js';
import { resourceRule } from './types.js';
import { isObject, objectAt, valueAt } from './spec-access.js';

const hasHook = (spec: JsonObject) => valueAt(spec, ['policies', 'toolCalls', 'hook', 'connection']) !== undefined;
/** Left to the server: absent, or null (which the writer leaves out). */
const unset = (value: unknown) => value === undefined || value === null;

export const destructiveToolWithoutDecision = resourceRule('agent', {
  id: 'destructive-tool-without-decision',
  rationale: 'A tool that may destroy (or whose annotations do not say it cannot) should wait for a hook or human decision.',
  check: (agent, context) =>
    (context.capabilities.get(agent.name)?.capabilities ?? [])
      .filter(
        (capability) =>
          capability.via.length === 0 && capability.decision === 'allowed' && (capability.effect === 'destructive' || capability.effect === 'unknown'),
      )
      .map((capability) => ({
        path: ['policies', 'toolCalls'],
        message: `${capability.tool} (${capability.effect === 'unknown' ? 'effect unknown, so assumed destructive' : 'destructive'}) runs without a decision: add a hook, or set policies.toolCalls.byTool to deny or ask`,
      })),
});

export const defaultAllowWithoutHook = resourceRule('agent', {
  id: 'default-allow-without-hook',
  rationale: 'policies.toolCalls.default: allow with no hook lets every tool run unchecked, including tools a server adds later.',
  check: (agent) => {
    if (hasHook(agent.spec)) return [];
    const value = valueAt(agent.spec, ['policies', 'toolCalls', 'default']);
    if (value === 'allow')
      return [
        { path: ['policies', 'toolCalls', 'default'], message: 'policies.toolCalls.default is allow and no hook decides: every tool call runs unchecked' },
      ];
    if (unset(value)) {
      return [
        {
          path: ['policies', 'toolCalls'],
          message: "policies.toolCalls.default is not set and no hook decides: the server's default may run every tool call unchecked; set it to deny or ask",
        },
      ];
    }
    return [];
  },
});

export const hookFailsOpen = resourceRule('agent', {
  id: 'hook-fails-open',
  rationale: 'A hook that allows the call when it errors or times out is bypassed by making it fail.',
  check: (agent) => {
    // Without a hook there is nothing to fail: the other rules judge the decisions then.
    if (!hasHook(agent.spec)) return [];
    const toolCalls = objectAt(agent.spec, ['policies', 'toolCalls']) ?? {};
    return (['onError', 'onTimeout'] as const).flatMap((field) => {
      if (toolCalls[field] === 'allow')
        return [{ path: ['policies', 'toolCalls', field], message: `policies.toolCalls.${field} is allow: the hook fails open` }];
      if (unset(toolCalls[field]))
        return [{ path: ['policies', 'toolCalls'], message: `policies.toolCalls.${field} is not set: the server's default may fail open; set it to deny` }];
      return [];
    });
  },
});

/**
 * A call may wait for a decision: a hook decides, a decision other than allow/deny (e.g. ask) is
 * configured, or the default is left to the server (which may ask).
 */
function mayWaitForDecision(spec: JsonObject): boolean {
  if (hasHook(spec)) return true;
  const toolCalls = objectAt(spec, ['policies', 'toolCalls']) ?? {};
  if (unset(toolCalls.default)) return true;
  const byTool = isObject(toolCalls.byTool) ? Object.values(toolCalls.byTool) : [];
  return [toolCalls.default, ...byTool].some((decision) => typeof decision === 'string' && decision !== 'allow' && decision !== 'deny');
}

export const decisionExpiryAllows = resourceRule('agent', {
  id: 'decision-expiry-not-deny',
  rationale: 'A pending decision nobody answers should be refused, not carried out.',
  check: (agent) => {
    const onExpire = valueAt(agent.spec, ['policies', 'decisions', 'onExpire']);
    if (onExpire === 'deny' || !mayWaitForDecision(agent.spec)) return [];
    if (unset(onExpire)) {
      return [
        {
          path: ['policies'],
          message: "policies.decisions.onExpire is not set: the server's default may carry out a decision nobody answered; set it to deny",
        },
      ];
    }
    return [
      {
        path: ['policies', 'decisions', 'onExpire'],
        message: `policies.decisions.onExpire is ${JSON.stringify(onExpire)}: an unanswered decision should expire into deny`,
      },
    ];
  },
});
