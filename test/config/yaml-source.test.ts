// Locating paths in parsed documents: the compact index (segments + flat node numbers) must find
// exactly the node a path names, also among siblings and cousins with the same key, and nothing else.
import { describe, expect, it } from 'vitest';
import { locatedDocuments, parseYamlText, yamlParser } from '../../src/config/yaml-source.js';

const TEXT = [
  'kind: Agent', // 1
  'name: a', // 2
  'spec:', // 3
  '  model: {provider: p, model: m}', // 4
  '  tools:', // 5
  '    - type: builtin', // 6
  '      name: current_time', // 7
  '    - {type: connection, name: github}', // 8
  '  policies:', // 9
  '    toolCalls:', // 10
  '      hook: {connection: hooks}', // 11
  '  name:', // 12 (written empty)
  '  "a.b": 1', // 13
  '  "x\u0001y": 2', // 14
  '---',
  'kind: Agent', // 16
  'name: b', // 17
  'spec: {model: {model: n}}', // 18
].join('\n');

const [first, second] = locatedDocuments(parseYamlText('agents.yaml', TEXT), '/p/agents.yaml');

describe('locating a path in a parsed document', () => {
  it.each([
    [['kind'], 'value', 1, 7],
    [['kind'], 'key', 1, 1],
    [['spec'], 'key', 3, 1],
    [['spec', 'model', 'model'], 'value', 4, 31],
    [['spec', 'model', 'model'], 'key', 4, 24],
    [['spec', 'tools', 0, 'name'], 'value', 7, 13],
    [['spec', 'tools', 1], 'value', 8, 7],
    [['spec', 'tools', 1, 'name'], 'value', 8, 32],
    [['spec', 'policies', 'toolCalls', 'hook', 'connection'], 'value', 11, 26],
    // Written empty: the key is the place.
    [['spec', 'name'], 'value', 12, 3],
    [['spec', 'a.b'], 'value', 13, 10],
    [['spec', 'x\u0001y'], 'value', 14, 10],
    [['spec', 'tools'], 'key', 5, 3],
    // Not there: the nearest written ancestor.
    [['spec', 'tools', 2, 'name'], 'value', 6, 5],
    [['spec', 'model', 'reasoning'], 'value', 4, 10],
    [['spec', 'x', 'y'], 'value', 4, 3],
    [['nothing'], 'value', 1, 1],
  ] as const)('%j (%s) is at %i:%i', (path, target, line, col) => {
    expect(first!.locate(path, target)).toEqual({ file: 'agents.yaml', line, col });
  });

  it('finds each document its own nodes', () => {
    expect(second!.locate(['spec', 'model', 'model'])).toEqual({ file: 'agents.yaml', line: 18, col: 23 });
    expect(second!.has(['spec', 'tools'])).toBe(false);
  });

  it.each([
    [[], true],
    [['spec'], true],
    [['spec', 'tools', 1, 'type'], true],
    [['spec', 'name'], true],
    [['spec', 'a.b'], true],
    [['spec', 'a'], false],
    [['spec', 'x'], false],
    [['spec', 'tools', 2], false],
    [['model'], false],
    [['spec', 'policies', 'hook'], false],
    [['spec', 'model', 'provider', 'x'], false],
    [['spec', 'x\u0001y'], true],
    // Regression: with paths joined by \u0001, the key "x\u0001y" passed for x.y.
    [['spec', 'x', 'y'], false],
  ] as const)('has %j: %s', (path, expected) => {
    expect(first!.has(path)).toBe(expected);
  });
});

describe('which parser reads plain YAML', () => {
  it.each([
    [{}, 'plain'],
    [{ AGENTFORM_YAML_PARSER: 'library' }, 'library'],
    [{ AGENTFORM_OPTIMIZATIONS: 'off' }, 'library'],
    [{ AGENTFORM_OPTIMIZATIONS: 'false' }, 'library'],
    [{ AGENTFORM_OPTIMIZATIONS: 'on' }, 'plain'],
  ] as Array<[NodeJS.ProcessEnv, string]>)('%j: %s', (env, parser) => {
    expect(yamlParser(env)).toBe(parser);
  });
});
