// Inputs built to hurt: too large, too deep, alias bombs, odd encodings. validate answers with a
// located problem and never throws.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateProject } from '../../src/config/index.js';
import { writeProject } from './helpers.js';

const AGENT_HEAD = 'kind: Agent\nname: a\nspec:\n  model: {provider: p, model: m}\n  system: x\n';

async function messagesFor(files: Record<string, string>): Promise<string[]> {
  const problems = await validateProject(writeProject(files), { env: {} });
  for (const problem of problems) expect(problem.location).toBeDefined();
  return problems.map((problem) => `${problem.location?.file}:${problem.location?.line}:${problem.location?.col}: ${problem.message}`);
}

describe('hostile input', () => {
  it('refuses a file over 10 MB without reading it as YAML', async () => {
    const dir = writeProject({});
    writeFileSync(join(dir, 'huge.yaml'), 'a'.repeat(11 * 1024 * 1024));
    const problems = await validateProject(dir, { env: {} });
    expect(problems.map((problem) => problem.message)).toEqual(['file is too large (11534336 bytes; at most 10485760)']);
  });

  it('reports nesting too deep for the parser as an error', async () => {
    const messages = await messagesFor({ 'a.yaml': `${AGENT_HEAD}  tools: ${'['.repeat(20000)}${']'.repeat(20000)}\n` });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/^a\.yaml:6:\d+: collections nest too deeply to read/);
  });

  it('stops an alias bomb', async () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let level = 1; level < 10; level++)
      bomb.push(
        `${String.fromCharCode(97 + level)}: &${String.fromCharCode(97 + level)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + level)}`)
          .join(',')}]`,
      );
    const messages = await messagesFor({ 'bomb.yaml': `${bomb.join('\n')}\n` });
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.join('\n')).toMatch(/bomb\.yaml:1:1: cannot read YAML: .*alias/i);
  });

  it('reads a UTF-8 byte order mark as nothing', async () => {
    expect(await messagesFor({ 'a.yaml': `\uFEFF${AGENT_HEAD}` })).toEqual(['a.yaml:4:21: provider "p" is not declared']);
  });

  it('reports a UTF-16 file as not UTF-8 text', async () => {
    const dir = writeProject({});
    writeFileSync(join(dir, 'utf16.yaml'), Buffer.from(`\uFEFF${AGENT_HEAD}`, 'utf16le'));
    const problems = await validateProject(dir, { env: {} });
    expect(problems.map((problem) => `${problem.location?.file}: ${problem.message}`)).toEqual(['utf16.yaml: not a YAML file: it is not valid UTF-8 text']);
  });
});
