import { describe, expect, it } from 'vitest';
import { checkTemplate, fillParams, resolveTemplate, type Template, type TemplateProblem, type TemplateUser } from '../../src/config/template-resolution.js';
import type { JsonObject, JsonValue } from '../../src/model/resources.js';

// The source of a template or agent is its name here: problems say which document they are in.
const template = (name: string, spec: JsonObject, params: Template<string>['params'] = {}, parent?: string): Template<string> => ({
  name,
  params,
  spec,
  source: name,
  ...(parent ? { extends: parent } : {}),
});
const library = (...templates: Template<string>[]) => new Map(templates.map((each) => [each.name, each]));
const agent = (parent: string, params: JsonObject = {}, spec?: JsonObject): TemplateUser<string> => ({
  extends: parent,
  params,
  source: 'agent',
  ...(spec ? { spec } : {}),
});

describe('resolveTemplate', () => {
  const base = template(
    'base',
    { model: { provider: 'openai', model: '${param:model}' }, limits: { maxTurns: 10 }, tools: [{ type: 'builtin', name: 'a' }] },
    {
      model: { default: 'gpt-4o' },
    },
  );
  const support = template(
    'support',
    { description: 'Support for ${param:team}', limits: { maxInputTokensPerSession: '${param:tokens}' } },
    { team: {}, tokens: { default: 1000 } },
    'base',
  );
  const templates = library(base, support);

  const cases: Array<{ name: string; user: TemplateUser<string>; expected: JsonObject }> = [
    {
      name: 'the chain merges root first, the agent last; defaults fill what the agent does not pass',
      user: agent('support', { team: 'eu' }),
      expected: {
        model: { provider: 'openai', model: 'gpt-4o' },
        limits: { maxTurns: 10, maxInputTokensPerSession: 1000 },
        tools: [{ type: 'builtin', name: 'a' }],
        description: 'Support for eu',
      },
    },
    {
      name: 'a passed value wins over a default and keeps its type when it is the whole string',
      user: agent('support', { team: 'us', tokens: 5, model: 'gpt-4o-mini' }),
      expected: {
        model: { provider: 'openai', model: 'gpt-4o-mini' },
        limits: { maxTurns: 10, maxInputTokensPerSession: 5 },
        tools: [{ type: 'builtin', name: 'a' }],
        description: 'Support for us',
      },
    },
    {
      name: "the agent's spec merges last: objects merge, lists replace, null stays (left to the server)",
      user: agent('support', { team: 'eu' }, { limits: { maxTurns: 3 }, tools: [], model: { model: null } }),
      expected: {
        model: { provider: 'openai', model: null },
        limits: { maxTurns: 3, maxInputTokensPerSession: 1000 },
        tools: [],
        description: 'Support for eu',
      },
    },
  ];
  it.each(cases)('$name', ({ user, expected }) => {
    const problems: TemplateProblem<string>[] = [];
    expect(resolveTemplate(user, templates, problems)).toEqual({ spec: expected, chain: [support, base], filled: expect.any(Array) });
    expect(problems).toEqual([]);
  });

  it("records each value that is a parameter's whole, and where that value is written", () => {
    const resolved = resolveTemplate(agent('support', { team: 'eu', model: 'gpt-4o-mini' }), templates, []);
    // description holds the parameter inside other text: the template's string, not the value's.
    expect(resolved?.filled).toEqual([
      { template: 'base', path: ['model', 'model'], value: { source: 'agent', path: ['params', 'model'] } },
      { template: 'support', path: ['limits', 'maxInputTokensPerSession'], value: { source: 'support', path: ['params', 'tokens', 'default'] } },
    ]);
  });

  it('a template overrides the template it extends, and the agent overrides both', () => {
    const child = template('child', { limits: { maxTurns: 20 }, description: 'child' }, {}, 'base');
    const own = library(base, child);
    expect(resolveTemplate(agent('child'), own, [])?.spec).toMatchObject({ limits: { maxTurns: 20 }, description: 'child' });
    expect(resolveTemplate(agent('child', {}, { description: 'agent' }), own, [])?.spec).toMatchObject({ limits: { maxTurns: 20 }, description: 'agent' });
  });

  it('leaves the templates untouched (each agent gets its own copy)', () => {
    resolveTemplate(agent('support', { team: 'eu' }, { limits: { maxTurns: 1 } }), templates, []);
    expect(base.spec.limits).toEqual({ maxTurns: 10 });
  });

  const errorCases: Array<{ name: string; user: TemplateUser<string>; templates?: Map<string, Template<string>>; problem: TemplateProblem<string> }> = [
    {
      name: 'an unknown template',
      user: agent('suport', { team: 'eu' }),
      problem: { message: 'unknown template "suport"; did you mean "support"?', source: 'agent', path: ['extends'] },
    },
    {
      name: 'an unknown parameter',
      user: agent('support', { team: 'eu', tem: 1 }),
      problem: {
        message: 'unknown parameter "tem" of template "support" (it takes team, tokens, model); did you mean "team"?',
        source: 'agent',
        path: ['params', 'tem'],
        target: 'key',
      },
    },
    {
      name: 'a missing parameter',
      user: agent('support'),
      problem: { message: 'template "support" needs parameter "team": pass it under params', source: 'agent', path: ['extends'] },
    },
    {
      name: 'a mapping inside text',
      user: agent('text', { value: { a: 1 } }),
      templates: library(template('text', { description: 'x ${param:value}' }, { value: {} })),
      problem: {
        message: 'parameter "value" is a mapping: only a value that is nothing but ${param:value} can take it (used in template "text" at spec.description)',
        source: 'agent',
        path: ['params', 'value'],
      },
    },
    {
      name: 'a null inside text (it would read "null")',
      user: agent('text', { value: null }),
      templates: library(template('text', { description: 'x ${param:value}' }, { value: {} })),
      problem: {
        message: 'parameter "value" is null: only a value that is nothing but ${param:value} can be null (used in template "text" at spec.description)',
        source: 'agent',
        path: ['params', 'value'],
      },
    },
    {
      name: 'a ${file:} inside text',
      user: agent('text', { value: 'see ${file:notes.md}' }),
      templates: library(template('text', { description: 'x ${param:value}' }, { value: {} })),
      problem: {
        message: 'parameter "value" reads a file (${file:}): only a value that is nothing but ${param:value} can (used in template "text" at spec.description)',
        source: 'agent',
        path: ['params', 'value'],
      },
    },
    {
      name: "a list default inside text (the declaring template's)",
      user: agent('child'),
      templates: library(template('parent', {}, { value: { default: [1] } }), template('child', { tools: [{ name: 'x ${param:value}' }] }, {}, 'parent')),
      problem: {
        message: 'parameter "value" is a list: only a value that is nothing but ${param:value} can take it (used in template "child" at spec.tools[0].name)',
        source: 'parent',
        path: ['params', 'value', 'default'],
      },
    },
  ];
  it.each(errorCases)('$name is a problem at its source', ({ user, templates: own, problem }) => {
    const problems: TemplateProblem<string>[] = [];
    const resolved = resolveTemplate(user, own ?? templates, problems);
    expect(problems).toEqual([problem]);
    expect(resolved).toBeUndefined();
  });
});

describe('checkTemplate', () => {
  it("an agent extending a cycle is left unresolved: the cycle is the templates' problem", () => {
    const problems: TemplateProblem<string>[] = [];
    const templates = library(template('a', {}, {}, 'b'), template('b', {}, {}, 'a'), template('c', {}, {}, 'a'));
    expect(resolveTemplate(agent('c'), templates, problems)).toBeUndefined();
    expect(problems).toEqual([]);
    for (const each of templates.values()) checkTemplate(each, templates, problems);
    expect(problems).toEqual([{ message: 'templates extend each other in a cycle: a → b → a', source: 'b', path: ['extends'] }]);
  });

  it('reports a ${param:} neither the template nor its parents declare, and a cycle back to itself', () => {
    const problems: TemplateProblem<string>[] = [];
    const parent = template('parent', {}, { a: {} });
    const child = template('child', { description: '${param:a} ${param:b}' }, {}, 'parent');
    const loop = template('loop', {}, {}, 'loop');
    const templates = library(parent, child, loop);
    for (const each of templates.values()) checkTemplate(each, templates, problems);
    expect(problems).toEqual([
      { message: 'unknown parameter "b": declare it under params of this template; did you mean "a"?', source: 'child', path: ['spec', 'description'] },
      { message: 'templates extend each other in a cycle: loop → loop', source: 'loop', path: ['extends'] },
    ]);
  });
});

describe('fillParams', () => {
  const params = new Map<string, JsonValue>([
    ['n', 3],
    ['s', 'x'],
    ['o', { a: 1 }],
  ]);
  const cases: Array<[JsonValue, JsonValue]> = [
    ['${param:n}', 3],
    ['${param:o}', { a: 1 }],
    ['a-${param:s}-${param:n}', 'a-x-3'],
    ['$${param:s} ${var:region}', '$${param:s} ${var:region}'],
    [{ list: ['${param:s}', 1, null] }, { list: ['x', 1, null] }],
  ];
  it.each(cases)('%j → %j', (input, output) => {
    const reports: string[] = [];
    expect(fillParams(input, params, (message) => reports.push(message))).toEqual(output);
    expect(reports).toEqual([]);
  });
});
