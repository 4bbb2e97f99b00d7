// Every `pattern` of a project schema says in a sentence what it wants (`patternErrorMessage`), so
// that neither an editor nor `agentform validate` ever shows a raw regular expression.
import { describe, expect, it } from 'vitest';
import { SCHEMA_NAMES, schemaText } from '../../src/config/schemas.js';

function patternsWithoutMessage(node: unknown, path: string, out: string[]): string[] {
  if (Array.isArray(node)) node.forEach((item, index) => patternsWithoutMessage(item, `${path}/${index}`, out));
  else if (node !== null && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    if (typeof record.pattern === 'string' && typeof record.patternErrorMessage !== 'string') out.push(path);
    for (const [key, value] of Object.entries(record)) patternsWithoutMessage(value, `${path}/${key}`, out);
  }
  return out;
}

describe.each(SCHEMA_NAMES)('schema %s', (name) => {
  it('gives every pattern a sentence', () => {
    expect(patternsWithoutMessage(JSON.parse(schemaText(name)), '', [])).toEqual([]);
  });
});
