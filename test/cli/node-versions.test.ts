// The built CLI under Node 24, beside the Node 20 that runs the rest of the suite: nothing on
// stderr, Node's own compile cache (src/startup), and no abort when better-sqlite3's objects are
// collected (src/server/store/db.ts). Node 24 is AGENTFORM_TEST_NODE24 (a path to its
// `node`; scripts/ci-node24.sh sets it), else the Node running the tests if it is one.
import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { copyExample, REPO, runCli } from '../helpers/cli.js';

function node24(): string | undefined {
  const given = process.env.AGENTFORM_TEST_NODE24?.trim();
  if (given) return given;
  return process.versions.node.split('.')[0] === '24' ? process.execPath : undefined;
}

const NO_NODE24 = 'no Node 24: set AGENTFORM_TEST_NODE24 to a Node 24 `node` (scripts/ci-node24.sh runs this under one)';

/** Why better-sqlite3 in node_modules cannot load under `node` (built for another Node's ABI), if it cannot. */
function sqliteUnloadable(node: string): string | undefined {
  const loaded = spawnSync(node, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { cwd: REPO, encoding: 'utf8' });
  if (loaded.status === 0) return undefined;
  return `node_modules/better-sqlite3 does not load under ${node} (built for another Node's ABI?): scripts/ci-node24.sh runs this with one built for Node 24`;
}

describe('the CLI under Node 24', () => {
  it('prints nothing on stderr for --version and validate, and uses Node’s compile cache', async (context) => {
    const node = node24();
    if (!node) return context.skip(NO_NODE24);
    const version = await runCli(['--version'], { node });
    expect(version).toMatchObject({ code: 0, stderr: '' });
    const project = await copyExample('quickstart');
    try {
      const validated = await runCli(['validate', project], { node });
      expect(validated).toMatchObject({ code: 0, stderr: '' });
      expect(validated.stdout).toContain('The configuration is valid.');
      // Node 24 keeps compiled code itself: the bundle's own caches (made for Node 20) are not used.
      const debugged = await runCli(['validate', project, '--debug'], { node });
      expect(debugged.stderr).toMatch(/\[debug\] start-up: Node's compile cache, (enabled|already enabled) \(/);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });

  it('ends every plan of a url: local project with exit code 0 (no abort as better-sqlite3 objects are collected)', { timeout: 120_000 }, async (context) => {
    const node = node24();
    if (!node) return context.skip(NO_NODE24);
    const unloadable = sqliteUnloadable(node);
    if (unloadable) return context.skip(unloadable);
    const project = await copyExample('quickstart');
    try {
      // Before the fix, 18 of 40 plans aborted (exit 134): 12 in a row passed by chance under once in 1,000.
      const codes: number[] = [];
      const failures: string[] = [];
      for (let run = 0; run < 12; run++) {
        const planned = await runCli(['plan'], { cwd: project, node });
        codes.push(planned.code);
        if (planned.code !== 0) failures.push(planned.stderr.slice(0, 400));
      }
      expect(failures).toEqual([]);
      expect(codes).toEqual(Array<number>(12).fill(0));
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
