// The Agent schema as published (`agentform schema --write`, what editors read through their
// modeline), checked by a plain ajv that knows none of agentform's keywords, as a third party
// would: an agent that extends a template (or promotes, or has overlays) gets its required fields
// from the merge, so the schema must not ask for them; any other agent still needs them.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { schemaFiles } from '../../src/config/editor-support.js';

const published = schemaFiles('.').find((file) => file.path === 'agent.schema.json');
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(published?.content ?? '{}'));

const full = { model: { provider: 'openai', model: 'gpt-4o' }, system: 'You help.' };

const cases: Array<{ name: string; document: Record<string, unknown>; valid: boolean }> = [
  { name: 'a templated agent with params and no spec', document: { kind: 'Agent', name: 'a', extends: 'support', params: { team: 'eu' } }, valid: true },
  {
    name: 'a templated agent whose spec has neither model nor system',
    document: { kind: 'Agent', name: 'a', extends: 'support', spec: { limits: { maxTurns: 3 } } },
    valid: true,
  },
  { name: 'a promoted agent without a spec', document: { kind: 'Agent', name: 'a', promote: { from: 'staging', version: 2 } }, valid: true },
  {
    name: 'an agent whose overlays give the model',
    document: { kind: 'Agent', name: 'a', spec: { system: 'x' }, overlays: { dev: { model: full.model } } },
    valid: true,
  },
  { name: 'a plain agent with model and system', document: { kind: 'Agent', name: 'a', spec: full }, valid: true },
  { name: 'a plain agent without model', document: { kind: 'Agent', name: 'a', spec: { system: 'You help.' } }, valid: false },
  { name: 'a plain agent without system', document: { kind: 'Agent', name: 'a', spec: { model: full.model } }, valid: false },
  {
    name: 'a templated agent still gets its spec fields checked',
    document: { kind: 'Agent', name: 'a', extends: 'support', spec: { limits: { maxTurns: 'many' } } },
    valid: false,
  },
  { name: 'a templated agent with an unknown spec key', document: { kind: 'Agent', name: 'a', extends: 'support', spec: { sytem: 'x' } }, valid: false },
  { name: 'params without extends', document: { kind: 'Agent', name: 'a', params: { team: 'eu' }, spec: full }, valid: false },
];

describe('the published Agent schema', () => {
  it.each(cases)('$name: valid $valid', ({ document, valid }) => {
    expect(validate(document), JSON.stringify(validate.errors)).toBe(valid);
  });

  it('names the missing field of a plain agent at its spec', () => {
    validate({ kind: 'Agent', name: 'a', spec: { system: 'You help.' } });
    expect(validate.errors).toContainEqual(expect.objectContaining({ instancePath: '/spec', keyword: 'required', params: { missingProperty: 'model' } }));
  });
});
