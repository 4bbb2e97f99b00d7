// A real editor's view of a project: the yaml-language-server (what VS Code's YAML extension runs)
// over stdio, on files whose modelines point at the schemas inside the project. No network: a
// schema that had to be downloaded would fail here.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, runCli } from '../helpers/cli.js';
import { LspClient, type Diagnostic } from '../helpers/lsp.js';

const SERVER = join(REPO, 'node_modules', 'yaml-language-server', 'bin', 'yaml-language-server');

describe('yaml-language-server on a project made by agentform init', () => {
  let project: string;
  let client: LspClient;
  let version = 1;

  async function open(path: string, text: string): Promise<Diagnostic[]> {
    const uri = pathToFileURL(path).href;
    await writeFile(path, text);
    const published = client.nextDiagnostics(uri);
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: version++, text } });
    return published;
  }

  beforeAll(async () => {
    project = join(await mkdtemp(join(tmpdir(), 'agentform-editor-')), 'project');
    const init = await runCli(['init', project]);
    expect(init.code, init.stderr).toBe(0);
    client = new LspClient(process.execPath, [SERVER, '--stdio'], {
      validate: true,
      completion: true,
      hover: true,
      schemaStore: { enable: false },
    });
    await client.request('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(project).href,
      capabilities: { textDocument: { completion: { completionItem: { snippetSupport: false } } }, workspace: { configuration: true } },
      workspaceFolders: [{ uri: pathToFileURL(project).href, name: 'project' }],
    });
    client.notify('initialized', {});
    client.notify('workspace/didChangeConfiguration', { settings: { yaml: { validate: true, completion: true, schemaStore: { enable: false } } } });
  }, 60_000);

  afterAll(async () => {
    await client?.close();
  });

  it('accepts the generated agent file as it is', async () => {
    const path = join(project, 'agents', 'assistant.yaml');
    const diagnostics = await open(path, await readFile(path, 'utf8'));
    expect(diagnostics).toEqual([]);
  });

  it('reports a misspelt key at its line', async () => {
    const path = join(project, 'agents', 'assistant.yaml');
    const text = (await readFile(path, 'utf8')).replace('  system:', '  sytem:');
    const line = text.split('\n').findIndex((row) => row.startsWith('  sytem:'));
    const diagnostics = await open(join(project, 'agents', 'typo.yaml'), text);
    const typo = diagnostics.find((diagnostic) => /sytem/.test(diagnostic.message) || diagnostic.range.start.line === line);
    expect(typo, JSON.stringify(diagnostics)).toBeDefined();
    expect(typo!.range.start.line).toBe(line);
  });

  it('explains a literal secret in a sentence, not a regular expression', async () => {
    const path = join(project, 'secrets.yaml');
    const text = ['# yaml-language-server: $schema=./schemas/secret.schema.json', 'kind: Secret', 'name: leaked', 'spec:', '  value: hunter2', ''].join('\n');
    const diagnostics = await open(path, text);
    const literal = diagnostics.find((diagnostic) => diagnostic.range.start.line === 4);
    expect(literal?.message, JSON.stringify(diagnostics)).toContain('write it as ${env:NAME} or ${file:PATH}');
    expect(literal?.message).not.toContain('^\\$');
  });

  it('accepts an agent that extends a template without model or system, and asks a plain one for them', async () => {
    const modeline = '# yaml-language-server: $schema=../schemas/agent.schema.json';
    const templated = [modeline, 'kind: Agent', 'name: support-eu', 'extends: support', 'params: {team: eu}', 'spec:', '  limits: {maxTurns: 30}', ''];
    expect(await open(join(project, 'agents', 'templated.yaml'), templated.join('\n'))).toEqual([]);
    const plain = [modeline, 'kind: Agent', 'name: plain', 'spec:', '  limits: {maxTurns: 30}', ''];
    const diagnostics = await open(join(project, 'agents', 'plain.yaml'), plain.join('\n'));
    expect(
      diagnostics.some((diagnostic) => /model/.test(diagnostic.message)),
      JSON.stringify(diagnostics),
    ).toBe(true);
  });

  it('offers the agent fields inside spec:', async () => {
    const path = join(project, 'agents', 'completion.yaml');
    const text = ['# yaml-language-server: $schema=../schemas/agent.schema.json', 'kind: Agent', 'name: draft', 'spec:', '  ', ''].join('\n');
    const uri = pathToFileURL(path).href;
    await open(path, text);
    const result = await client.request<{ items: Array<{ label: string }> } | Array<{ label: string }>>('textDocument/completion', {
      textDocument: { uri },
      position: { line: 4, character: 2 },
    });
    const labels = (Array.isArray(result) ? result : result.items).map((item) => item.label);
    expect(labels).toEqual(expect.arrayContaining(['model', 'system', 'tools', 'policies', 'limits', 'sandbox']));
  });
});
