// Rules about bounds: turns and tokens per session, spend caps, keys that never expire.
import { addressOf, type DesiredResource } from '../../model/resources.js';
import { type BuiltinRule, resourceRule, STRICT_IN_PRODUCTION } from './types.js';
import { arrayAt, objectAt, valueAt } from './spec-access.js';

export const limitsMissing = resourceRule('agent', {
  id: 'limits-missing',
  rationale: 'Without limits.maxTurns and limits.maxInputTokensPerSession a looping session runs (and bills) until something else stops it.',
  check: (agent) => {
    const missing = (['maxTurns', 'maxInputTokensPerSession'] as const).filter((field) => typeof valueAt(agent.spec, ['limits', field]) !== 'number');
    return missing.length === 0 ? [] : [{ path: ['limits'], message: `no ${missing.map((field) => `limits.${field}`).join(' or ')}: a session is unbounded` }];
  },
});

function hasCaps(spec: DesiredResource['spec']): boolean {
  const spend = objectAt(spec, ['spend']);
  return spend !== undefined && Object.values(spend).some((value) => typeof value === 'number');
}

export const environmentSpendCapsMissing: BuiltinRule = {
  id: 'environment-spend-caps-missing',
  rationale: 'Spend caps on the environment bound what a runaway agent or a leaked key can cost.',
  severity: STRICT_IN_PRODUCTION,
  check: (context) => {
    const environment = context.byKind('environment')[0];
    if (environment && hasCaps(environment.spec)) return [];
    const name = environment?.name ?? context.environmentSlug ?? context.environment;
    return [
      {
        address: addressOf('environment', name),
        path: ['spend'],
        message: `environment ${context.environment} has no spend caps (settings.spend: dailyUsd, tokensPerMonth, agentMinutesPerMonth)`,
      },
    ];
  },
};

export const keySpendCapsMissing = resourceRule('apiKey', {
  id: 'key-spend-caps-missing',
  rationale: 'A key with no spend caps can use the whole environment budget if it leaks.',
  check: (key) => (hasCaps(key.spec) ? [] : [{ path: ['spend'], message: `API key ${key.name} has no spend caps` }]),
});

export const controlKeyWithoutExpiry = resourceRule('apiKey', {
  id: 'control-key-without-expiry',
  rationale: 'A control key can change every agent; one that never expires stays dangerous long after it is forgotten.',
  check: (key) => {
    const expiresAt = valueAt(key.spec, ['expiresAt']);
    if (!arrayAt(key.spec, ['scopes']).includes('control') || (typeof expiresAt === 'string' && expiresAt !== '')) return [];
    return [{ path: ['scopes'], message: `API key ${key.name} has the control scope and no expiresAt` }];
  },
});
