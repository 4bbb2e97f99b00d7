// A saved plan is stale when what it depends on changed: the configuration, or of a remote object
// its id, its write marks or a field the configuration manages; not when the server changed a field
// nobody configures by itself (issue 44: a nested field new on every read made every saved plan stale).
import { describe, expect, it } from 'vitest';
import { savePlan, staleness } from '../../src/apply/saved-plan.js';
import { computePlan } from '../../src/engine/plan.js';
import type { ActualState, DesiredState, JsonObject } from '../../src/model/resources.js';
import { normalizeAgent } from '../../src/state/normalize.js';

const configured: JsonObject = { name: 'Bot', model: { provider: 'p', model: 'm' }, limits: { maxTurns: 4 } };
const desired: DesiredState = {
  projectDir: '/p',
  target: { name: 'dev', slug: 'dev', url: 'local', prune: false },
  resources: [{ kind: 'agent', name: 'bot', spec: configured, writeOnly: {}, references: [] }],
};

interface Definition {
  name: string;
  model: Record<string, unknown>;
  limits: Record<string, unknown>;
  system: string;
}

function remoteWith(edit: (definition: Definition) => void = () => undefined, version = 2): ActualState {
  const definition: Definition = { name: 'Bot', model: { provider: 'p', model: 'm', resolvedAt: 't1' }, limits: { maxTurns: 3 }, system: 's' };
  edit(definition);
  return { environmentSlug: 'dev', resources: [normalizeAgent({ agentId: 'agt', slug: 'bot', version, definition } as never)], missingOperations: [] };
}

describe('saved plan staleness', () => {
  const before = remoteWith();
  const saved = savePlan(computePlan(desired, before, { prune: false }), desired, before);

  it.each<[string, ActualState, string[]]>([
    ['unchanged', remoteWith(), []],
    ['a server-owned field nested in the definition, new on this read', remoteWith((d) => void (d.model.resolvedAt = 't2')), []],
    ['a field the configuration does not set', remoteWith((d) => void (d.system = 'other')), []],
    ['a field the configuration manages', remoteWith((d) => void (d.limits.maxTurns = 9)), ['agent/bot: the remote object changed since the plan was saved']],
    ['a new version (a write since)', remoteWith(undefined, 3), ['agent/bot: the remote object changed since the plan was saved']],
  ])('%s', (_name, now, reasons) => {
    expect(staleness(saved, desired, now)).toEqual(reasons);
  });
});
