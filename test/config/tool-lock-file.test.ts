import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCK_FILE, parseToolLock, readToolLock, toolLockText, writeToolLock } from '../../src/config/tool-lock-file.js';
import { lockConnection } from '../../src/engine/tool-surface.js';
import { ProblemsError } from '../../src/errors.js';
import type { ToolSurfaceLock } from '../../src/model/tool-lock.js';

const lock: ToolSurfaceLock = {
  version: 1,
  environments: {
    prod: { tools: lockConnection([{ name: 'echo', description: 'Echo', annotations: { readOnlyHint: true } }]) },
    dev: {
      zeta: lockConnection([]),
      alpha: lockConnection([
        { name: 'rm', inputSchema: { type: 'object' } },
        { name: 'add', inputSchema: { type: 'object' } },
      ]),
    },
  },
};

function problemsOf(text: string): string[] {
  try {
    parseToolLock(LOCK_FILE, `/p/${LOCK_FILE}`, text);
  } catch (error) {
    if (error instanceof ProblemsError)
      return error.problems.map((problem) => `${problem.location?.file}:${problem.location?.line}:${problem.location?.col}: ${problem.message}`);
    throw error;
  }
  return [];
}

describe('the lock file', () => {
  it('is written in one order, with a header, and reads back to the same lock', () => {
    const text = toolLockText(lock);
    expect(text.startsWith('# agentform.lock.yaml:')).toBe(true);
    expect(text).toContain('commit it');
    // Environments, connections and tools sorted; each tool's keys as name, digest, annotations.
    expect(text.indexOf('dev:')).toBeLessThan(text.indexOf('prod:'));
    expect(text.indexOf('alpha:')).toBeLessThan(text.indexOf('zeta:'));
    expect(text.indexOf('name: add')).toBeLessThan(text.indexOf('name: rm'));
    expect(text).toMatch(
      /- name: echo\n\s+digest: sha256:[0-9a-f]{64}\n\s+annotations:\n\s+destructiveHint: true\n\s+idempotentHint: false\n\s+openWorldHint: true\n\s+readOnlyHint: true\n/,
    );
    const parsed = parseToolLock(LOCK_FILE, `/p/${LOCK_FILE}`, text);
    expect(parsed).toEqual(parseToolLock(LOCK_FILE, '/p', toolLockText(parsed)));
    expect(toolLockText(parsed)).toBe(text);
  });

  it('does not depend on the order the lock was built in', () => {
    const reversed: ToolSurfaceLock = {
      version: 1,
      environments: {
        prod: lock.environments.prod!,
        dev: { alpha: { tools: [...lock.environments.dev!.alpha!.tools].reverse() }, zeta: lock.environments.dev!.zeta! },
      },
    };
    expect(toolLockText(reversed)).toBe(toolLockText(lock));
  });

  it('is written atomically and read back; no file: undefined', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentform-lockfile-'));
    expect(await readToolLock(dir)).toBeUndefined();
    await writeToolLock(dir, lock);
    expect(await readdir(dir)).toEqual([LOCK_FILE]);
    expect(await readFile(join(dir, LOCK_FILE), 'utf8')).toBe(toolLockText(lock));
    expect(await readToolLock(dir)).toEqual(parseToolLock(LOCK_FILE, '', toolLockText(lock)));
  });

  it.each([
    ['not YAML', 'version: 1\nenvironments: {dev: [\n', /^agentform\.lock\.yaml:\d+:\d+: /],
    [
      'an unknown key, at the key',
      'version: 1\nenvironments:\n  dev:\n    github:\n      tools: []\n      url: http://u:p@x\n',
      /^agentform\.lock\.yaml:6:7: unknown key "url"/,
    ],
    [
      'a digest that is not sha256',
      'version: 1\nenvironments:\n  dev:\n    github:\n      tools:\n        - name: x\n          digest: md5:abc\n          annotations: {destructiveHint: true, idempotentHint: false, openWorldHint: true, readOnlyHint: false}\n',
      /^agentform\.lock\.yaml:7:19: must be sha256:/,
    ],
    [
      'a missing hint',
      `version: 1\nenvironments:\n  dev:\n    github:\n      tools:\n        - name: x\n          digest: sha256:${'0'.repeat(64)}\n          annotations: {destructiveHint: true}\n`,
      /missing required key "idempotentHint"/,
    ],
    ['another version', 'version: 2\nenvironments: {}\n', /^agentform\.lock\.yaml:1:10: must be 1/],
    ['two documents', 'version: 1\nenvironments: {}\n---\nversion: 1\nenvironments: {}\n', /exactly one YAML document/],
  ])('%s: a located error', (_name, text, expected) => {
    const problems = problemsOf(text);
    expect(problems.length, problems.join('\n')).toBeGreaterThan(0);
    expect(problems.join('\n')).toMatch(expected);
  });

  it('a malformed file on disk is reported with the path and a way out', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentform-lockfile-'));
    await writeFile(join(dir, LOCK_FILE), 'version: 1\nenvironments: 3\n');
    const error = await readToolLock(dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProblemsError);
    expect((error as ProblemsError).message).toContain('agentform lock --update');
    expect((error as ProblemsError).problems[0]!.location).toMatchObject({ file: LOCK_FILE, line: 2, col: 15 });
  });
});
