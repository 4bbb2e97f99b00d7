// fs.promises, not node:fs/promises: node:fs loads its promise API on first use, not with every
// command that might write a file (a plan writes nothing).
import * as fs from 'node:fs';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file so that readers see either the old or the whole new content, never a part:
 * write a temporary file beside it, then rename over the target (atomic on one filesystem), or
 * with `exclusive` hard-link it to the target, which fails (EEXIST) instead of replacing a file.
 *
 * The content reaches the disk before the rename, and the rename before this returns (fsync of the
 * file, then of the folder where the platform allows it): without that, a power loss after the
 * rename can leave the target empty (a lock file, a saved plan, a key's token).
 *
 * A process killed between the two steps (SIGKILL, power loss) cannot remove its temporary file,
 * so the name carries the writer's pid and every later write to the same target first removes
 * temporary files whose writer is gone (see {@link removeStaleTempFiles}).
 */
export async function writeFileAtomic(path: string, content: string | Uint8Array, options: { mode?: number; exclusive?: boolean } = {}): Promise<void> {
  await fs.promises.mkdir(dirname(path), { recursive: true });
  await removeStaleTempFiles(path);
  const temp = temporaryPathFor(path);
  try {
    const handle = await fs.promises.open(temp, 'wx', options.mode ?? 0o644);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // `exclusive`: never replace an existing file. link() fails with EEXIST when the target exists,
    // atomically, where a check before rename() would leave a window for a second writer.
    if (options.exclusive) await fs.promises.link(temp, path);
    else await fs.promises.rename(temp, path);
    await syncFolder(dirname(path));
  } finally {
    await fs.promises.rm(temp, { force: true });
  }
}

/** fsync of a folder, so that a rename in it is on disk; not every platform opens folders (Windows). */
async function syncFolder(folder: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof fs.promises.open>> | undefined;
  try {
    handle = await fs.promises.open(folder, 'r');
    await handle.sync();
  } catch {
    // Best effort: the file itself is on disk; only the name may be lost.
  } finally {
    await handle?.close();
  }
}

/**
 * {@link writeFileAtomic} for a writer that cannot wait (a cache written as the process exits, or
 * from synchronous code): the same temporary file, renamed over the target. It neither creates the
 * directory nor clears other writers' leftovers, and it throws what the write throws.
 */
export function writeFileAtomicSync(path: string, content: string | Uint8Array, options: { mode?: number } = {}): void {
  const temp = temporaryPathFor(path);
  try {
    writeFileSync(temp, content, { mode: options.mode ?? 0o644, flag: 'wx' });
    renameSync(temp, path);
  } finally {
    rmSync(temp, { force: true });
  }
}

let temporaryFiles = 0;
/**
 * Beside `path`, named after it and this process (see {@link removeStaleTempFiles}). Unique within
 * the process by a counter, between processes by the pid, and between machines that share a folder
 * by 32 random bits. The name is no secret, so Math.random will do: loading node:crypto would cost
 * a run time (util/sha256.ts).
 */
export function temporaryPathFor(path: string): string {
  temporaryFiles += 1;
  const tag = `${temporaryFiles.toString(16)}${Math.floor(Math.random() * 0x1_0000_0000)
    .toString(16)
    .padStart(8, '0')}`;
  return join(dirname(path), `.${basename(path)}.${process.pid}.${tag}.tmp`);
}

/**
 * Removes the temporary files that {@link writeFileAtomic} left beside `path` in processes that no
 * longer run. A live writer's file is never touched, so two agentform processes can share a directory.
 * Returns the names removed.
 */
export async function removeStaleTempFiles(path: string): Promise<string[]> {
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = await fs.promises.readdir(dirname(path));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const match = /^(\d+)\.[0-9a-f]+\.tmp$/.exec(name.slice(prefix.length));
    if (!match || isRunning(Number(match[1]))) continue;
    await fs.promises.rm(join(dirname(path), name), { force: true });
    removed.push(name);
  }
  return removed;
}

/** Whether a process with this id runs (on this machine), as far as this process can tell. */
export function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
