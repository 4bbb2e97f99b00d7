// Rules about who decides a tool call: destructive tools without a decision, a default of allow
// with no hook, hooks that fail open, decisions that expire into anything but deny.
import { addressOf, type JsonObject } from '../../model/resources.js';
import type { BuiltinRule, RawFinding } from './types.js';
import { isObject, objectAt, valueAt } from './spec-access.js';

export const destructiveToolWithoutDecision: BuiltinRule = {
  id: 'destructive-tool-without-decision',
  rationale: 'A tool that may destroy (or whose annotations do not say it cannot) should wait for a hook or human decision.',
  severity: { other: 'warning', production: 'error' },
  check: (context) =>
    context.byKind('agent').flatMap((agent): RawFinding[] => {
      const own = (context.capabilities.get(agent.name)?.capabilities ?? []).filter((capability) => capability.via.length === 0);
      return own
        .filter((capability) => capability.decision === 'allowed' && (capability.effect === 'destructive' || capability.effect === 'unknown'))
        .map((capability) => ({
          address: addressOf('agent', agent.name),
          path: ['policies', 'toolCalls'],
          message: `${capability.tool} (${capability.effect === 'unknown' ? 'effect unknown, so assumed destructive' : 'destructive'}) runs without a decision: add a hook, or set policies.toolCalls.byTool to deny or ask`,
        }));
    }),
};

export const defaultAllowWithoutHook: BuiltinRule = {
  id: 'default-allow-without-hook',
  rationale: 'policies.toolCalls.default: allow with no hook lets every tool run unchecked, including tools a server adds later.',
  severity: { other: 'warning', production: 'error' },
  check: (context) =>
    context.byKind('agent').flatMap((agent): RawFinding[] => {
      const toolCalls = objectAt(agent.spec, ['policies', 'toolCalls']);
      if (toolCalls?.default !== 'allow' || valueAt(agent.spec, ['policies', 'toolCalls', 'hook', 'connection']) !== undefined) return [];
      return [{ address: addressOf('agent', agent.name), path: ['policies', 'toolCalls', 'default'], message: 'policies.toolCalls.default is allow and no hook decides: every tool call runs unchecked' }];
    }),
};

export const hookFailsOpen: BuiltinRule = {
  id: 'hook-fails-open',
  rationale: 'A hook that allows the call when it errors or times out is bypassed by making it fail.',
  severity: { other: 'warning', production: 'error' },
  check: (context) =>
    context.byKind('agent').flatMap((agent): RawFinding[] => {
      const toolCalls = objectAt(agent.spec, ['policies', 'toolCalls']) ?? {};
      // Without a hook there is nothing to fail: the other rules judge the decisions then.
      if (valueAt(agent.spec, ['policies', 'toolCalls', 'hook', 'connection']) === undefined) return [];
      return (['onError', 'onTimeout'] as const)
        .filter((field) => toolCalls[field] === 'allow')
        .map((field) => ({ address: addressOf('agent', agent.name), path: ['policies', 'toolCalls', field], message: `policies.toolCalls.${field} is allow: the hook fails open` }));
    }),
};

/** A call may wait for a decision: a hook decides, or a decision other than allow/deny (e.g. ask) is configured. */
function mayWaitForDecision(spec: JsonObject): boolean {
  const toolCalls = objectAt(spec, ['policies', 'toolCalls']) ?? {};
  if (valueAt(spec, ['policies', 'toolCalls', 'hook', 'connection']) !== undefined) return true;
  const byTool = isObject(toolCalls.byTool) ? Object.values(toolCalls.byTool) : [];
  return [toolCalls.default, ...byTool].some((decision) => typeof decision === 'string' && decision !== 'allow' && decision !== 'deny');
}

export const decisionExpiryAllows: BuiltinRule = {
  id: 'decision-expiry-not-deny',
  rationale: 'A pending decision nobody answers should be refused, not carried out.',
  severity: { other: 'warning', production: 'error' },
  check: (context) =>
    context.byKind('agent').flatMap((agent): RawFinding[] => {
      const onExpire = valueAt(agent.spec, ['policies', 'decisions', 'onExpire']);
      if (onExpire === undefined || onExpire === null || onExpire === 'deny' || !mayWaitForDecision(agent.spec)) return [];
      return [{ address: addressOf('agent', agent.name), path: ['policies', 'decisions', 'onExpire'], message: `policies.decisions.onExpire is ${JSON.stringify(onExpire)}: an unanswered decision should expire into deny` }];
    }),
};
