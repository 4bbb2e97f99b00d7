// The built CLI under Node 24, beside the Node 20 that runs the rest of the suite (issue 43): no
// V8 flag that Node 24's V8 refuses (src/util/v8-flags.ts). Node 24 is AGENTFORM_TEST_NODE24 (a
// path to its `node`; scripts/ci-node24.sh sets it), else the Node running the tests if it is one.
import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { copyExample, runCli } from '../helpers/cli.js';

function node24(): string | undefined {
  const given = process.env.AGENTFORM_TEST_NODE24?.trim();
  if (given) return given;
  return process.versions.node.split('.')[0] === '24' ? process.execPath : undefined;
}

const NO_NODE24 = 'no Node 24: set AGENTFORM_TEST_NODE24 to a Node 24 `node` (scripts/ci-node24.sh runs this under one)';

describe('the CLI under Node 24', () => {
  it('prints nothing on stderr for --version and validate (no V8 flag it refuses)', async (context) => {
    const node = node24();
    if (!node) return context.skip(NO_NODE24);
    const version = await runCli(['--version'], { node });
    expect(version).toMatchObject({ code: 0, stderr: '' });
    const project = await copyExample('quickstart');
    try {
      const validated = await runCli(['validate', project], { node });
      expect(validated).toMatchObject({ code: 0, stderr: '' });
      expect(validated.stdout).toContain('The configuration is valid.');
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
