// Inputs for the policy tests: an environment that passes every built-in rule, and ways to break it.
import type { PolicyInput } from '../../../src/engine/policy/index.js';
import { DEFAULT_THRESHOLDS } from '../../../src/engine/policy/index.js';
import type { DesiredResource, JsonObject } from '../../../src/model/resources.js';
import type { LockedConnection, ToolAnnotations } from '../../../src/model/tool-lock.js';
import { desired } from '../builders.js';

/** An agent every built-in rule accepts. */
export function goodAgent(extra: JsonObject = {}): JsonObject {
  return {
    model: { provider: 'openai', model: 'gpt-4o' },
    system: 'You help.',
    tools: [{ type: 'builtin', name: 'current_time' }],
    policies: { toolCalls: { hook: { connection: 'gate' }, default: 'allow', onError: 'deny', onTimeout: 'deny' }, decisions: { onExpire: 'deny' } },
    limits: { maxTurns: 10, maxInputTokensPerSession: 100000 },
    ...extra,
  };
}

export const annotations = (hints: Partial<ToolAnnotations> = {}): ToolAnnotations => ({
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
  ...hints,
});

export const GITHUB_SURFACE: LockedConnection = {
  tools: [
    { name: 'delete_repo', annotations: annotations(), digest: 'sha256:1' },
    { name: 'search', annotations: annotations({ readOnlyHint: true, destructiveHint: false }), digest: 'sha256:2' },
  ],
};

/** The environment settings with spend caps, a provider with a secret, and the given resources. */
export function environmentWith(resources: DesiredResource[], options: { kind?: string; spend?: boolean } = {}): PolicyInput {
  const environment = desired('environment', 'staging', {
    ...(options.kind ? { kind: options.kind } : {}),
    ...(options.spend === false ? {} : { spend: { dailyUsd: 10 } }),
  });
  const provider = desired('provider', 'openai', { type: 'openai' }, { writeOnly: { secret: { source: '${env:OPENAI}' } } });
  return {
    environment: 'staging',
    ...(options.kind ? { environmentKind: options.kind } : {}),
    resources: [environment, provider, ...resources],
    surfaces: { github: GITHUB_SURFACE },
    thresholds: DEFAULT_THRESHOLDS,
  };
}
