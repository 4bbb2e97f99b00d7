// Builders for plan inputs, shared by the engine and render tests.
import { fingerprint } from '../../src/engine/canonical.js';
import type { ActualResource, ActualState, DesiredResource, DesiredState, JsonObject, ResourceKind } from '../../src/model/resources.js';

export function desired(kind: ResourceKind, name: string, spec: JsonObject = {}, extra: Partial<DesiredResource> = {}): DesiredResource {
  return { kind, name, spec, writeOnly: {}, references: [], ...extra };
}

export function actual(kind: ResourceKind, name: string, spec: JsonObject = {}, remote: JsonObject = {}): ActualResource {
  const raw = { id: `${kind}-${name}-id`, name, ...remote };
  return { kind, name, id: raw.id as string, spec, remote: raw, fingerprint: fingerprint(raw) };
}

export function desiredState(resources: DesiredResource[], name = 'staging'): DesiredState {
  return { projectDir: '/project', target: { name, slug: name, url: 'https://api.example.test', prune: false }, resources };
}

export function actualState(resources: ActualResource[], missingOperations: ActualState['missingOperations'] = []): ActualState {
  return { environmentSlug: 'staging', resources, missingOperations };
}

export function agentSpec(model = 'gpt-4o', system = 'You are helpful.'): JsonObject {
  return { name: 'Agent', model: { provider: 'openai', model }, system, tools: [], policies: {}, limits: {} };
}
