import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promises as fsApi } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { removeStaleTempFiles, temporaryPathFor, writeFileAtomic, writeFileAtomicSync } from '../../src/util/atomic-write.js';

/** The pid of a process that has exited (pids are not reused this quickly on Linux). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('writeFileAtomic', () => {
  it('puts the content on disk before the rename, and the rename before it returns', async () => {
    // Regression (issue 46): a rename without an fsync of the file could leave an empty lock file
    // or saved plan after a power loss.
    const dir = await mkdtemp(join(tmpdir(), 'agentform-atomic-'));
    const file = join(dir, 'agentform.lock.yaml');
    const steps: string[] = [];
    const open = fsApi.open.bind(fsApi);
    const opened = vi.spyOn(fsApi, 'open').mockImplementation(async (...args: Parameters<typeof fsApi.open>) => {
      const handle = await open(...args);
      const what = String(args[0]) === dir ? 'folder' : 'file';
      const sync = handle.sync.bind(handle);
      handle.sync = async () => {
        steps.push(`sync ${what}`);
        return sync();
      };
      return handle;
    });
    const rename = fsApi.rename.bind(fsApi);
    const renamed = vi.spyOn(fsApi, 'rename').mockImplementation(async (...args: Parameters<typeof fsApi.rename>) => {
      steps.push('rename');
      return rename(...args);
    });
    try {
      await writeFileAtomic(file, 'version: 1\n');
    } finally {
      opened.mockRestore();
      renamed.mockRestore();
    }
    expect(steps).toEqual(['sync file', 'rename', 'sync folder']);
    expect(await readFile(file, 'utf8')).toBe('version: 1\n');
  });

  it('writes the whole content with the asked mode and leaves no temporary file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentform-atomic-'));
    const file = join(dir, 'nested', 'ci.token');
    await writeFileAtomic(file, 'svc_dev_x\n', { mode: 0o600 });
    expect(await readFile(file, 'utf8')).toBe('svc_dev_x\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, 'nested'))).toEqual(['ci.token']);
  });

  it('removes the temporary file a killed writer left beside the target, and only that', async () => {
    // Regression: a SIGKILL between writing and renaming left `.key1.token.<random>.tmp` forever.
    const dir = await mkdtemp(join(tmpdir(), 'agentform-atomic-'));
    const dead = deadPid();
    const stale = `.ci.token.${dead}.0a1b2c3d4e5f.tmp`;
    const live = `.ci.token.${process.ppid}.0a1b2c3d4e5f.tmp`;
    const others = [`.other.token.${dead}.0a1b2c3d4e5f.tmp`, 'notes.tmp', `.ci.token.${dead}.not-hex.tmp`];
    for (const name of [stale, live, ...others]) await writeFile(join(dir, name), 'partial');
    await writeFileAtomic(join(dir, 'ci.token'), 'whole\n');
    expect((await readdir(dir)).sort()).toEqual([live, ...others, 'ci.token'].sort());
  });

  it('removeStaleTempFiles reports what it removed and tolerates a missing directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentform-atomic-'));
    const stale = `.plan.json.${deadPid()}.abcdef012345.tmp`;
    await writeFile(join(dir, stale), '{');
    expect(await removeStaleTempFiles(join(dir, 'plan.json'))).toEqual([stale]);
    expect(await removeStaleTempFiles(join(dir, 'missing', 'plan.json'))).toEqual([]);
  });
});

describe('writeFileAtomicSync', () => {
  it('replaces the whole content with the asked mode and leaves no temporary file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentform-atomic-'));
    const file = join(dir, 'entry.json');
    await writeFile(file, 'old content, longer than the new');
    writeFileAtomicSync(file, '{}', { mode: 0o600 });
    expect(await readFile(file, 'utf8')).toBe('{}');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['entry.json']);
  });

  it('throws what the write throws, and leaves no temporary file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentform-atomic-'));
    // A directory where the file should go: the rename fails.
    mkdirSync(join(dir, 'entry.json'));
    expect(() => writeFileAtomicSync(join(dir, 'entry.json'), '{}')).toThrow();
    expect(await readdir(dir)).toEqual(['entry.json']);
  });
});

describe('temporaryPathFor', () => {
  it('names a file beside the target after it and this process, never the same name twice', () => {
    const names = Array.from({ length: 1000 }, () => temporaryPathFor('/data/ci.token'));
    for (const name of names) expect(name).toMatch(new RegExp(`^/data/\\.ci\\.token\\.${process.pid}\\.[0-9a-f]+\\.tmp$`));
    expect(new Set(names).size).toBe(names.length);
  });
});
