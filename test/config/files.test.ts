// Project discovery: which files are resource files. Dot-files and dot-directories belong to other
// tools (CI recipes, Git, editors, agentform's own .agentform/) and are never read as resources.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSkippedEntry, resourceFiles, testFiles } from '../../src/config/files.js';
import { ProblemList } from '../../src/config/problems.js';
import { readProject } from '../../src/config/project.js';

const AGENT = (name: string) => `kind: Agent\nname: ${name}\nspec:\n  model: {provider: main, model: gpt-4o}\n  system: Be brief.\n`;
// Not resource documents: each would be an error if it were read as one.
const NOT_RESOURCES: Record<string, string> = {
  '.gitlab-ci.yml': 'stages: [validate]\nvalidate:\n  script: [agentform validate]\n',
  '.gitlab-ci-local-variables.yml': 'GITLAB_API_TOKEN: x\n',
  '.github/workflows/x.yml': 'on: push\njobs: {}\n',
  '.hidden/agent.yaml': AGENT('hidden'),
  'agents/.draft.yaml': AGENT('draft'),
  'agents/.wip/agent.yml': AGENT('wip'),
  '.agentform/cache/entry.yaml': 'junk: [\n',
  'node_modules/pkg/config.yaml': 'junk: [\n',
  // Capability test files (docs/capability-tests.md): read by `agentform test`, never as resources.
  'tests/agents.test.yaml': 'tests:\n  - agent: helper\n    can: builtin.current_time\n',
  'smoke.test.yml': 'tests: []\n',
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentform-files-'));
  const files: Record<string, string> = {
    'agentform.yaml': 'version: 1\nenvironments:\n  dev:\n    url: https://control.example.com\n',
    'providers.yaml': 'kind: Provider\nname: main\nspec:\n  type: openai\n  secret: ${env:FILES_TEST_SECRET:-x}\n',
    'agents/helper.yaml': AGENT('helper'),
    ...NOT_RESOURCES,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('resourceFiles', () => {
  it('lists no dot-file or dot-directory at any depth, nor node_modules', async () => {
    expect(await resourceFiles(dir, 'agentform.yaml')).toEqual(['agents/helper.yaml', 'providers.yaml']);
  });

  it('skips them even when include names them', async () => {
    expect(await resourceFiles(dir, 'agentform.yaml', ['.hidden/**', '**/.*.yaml', '.gitlab-ci.yml'])).toEqual([]);
  });

  it.each([
    ['.gitlab-ci.yml', false, true],
    ['.github', true, true],
    ['.agentform', true, true],
    ['node_modules', true, true],
    ['node_modules', false, false],
    ['agents', true, false],
    ['agent.yaml', false, false],
  ])('isSkippedEntry(%s, directory: %s) is %s', (name, isDirectory, expected) => {
    expect(isSkippedEntry(name, isDirectory)).toBe(expected);
  });
});

describe('testFiles', () => {
  it('lists the *.test.yaml / *.test.yml files, skipping what the walk skips; exclude applies', async () => {
    expect(await testFiles(dir)).toEqual(['smoke.test.yml', 'tests/agents.test.yaml']);
    expect(await testFiles(dir, ['tests/**'])).toEqual(['smoke.test.yml']);
  });
});

describe('readProject', () => {
  it('validates a project holding CI files and hidden folders, reading none of them', async () => {
    const problems = new ProblemList();
    const project = await readProject(dir, problems);
    expect(problems.sorted().map((problem) => problem.message)).toEqual([]);
    expect(project?.files).toEqual(['agents/helper.yaml', 'providers.yaml']);
    expect(project?.documents.map((document) => document.name).sort()).toEqual(['helper', 'main']);
  });
});
