// The file side of API key token files: what each declared key's `tokenFile` holds when the plan
// is made, whether it can be written, and the write itself, which never replaces a file that
// changed since the plan (another apply at once) nor creates over one that appeared meanwhile.
// fs.promises loads on first use: only projects with token files pay for it.
import * as fs from 'node:fs';
import { constants } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { TokenFileContent } from '../engine/api-key-files.js';
import { UserError } from '../errors.js';
import type { DesiredState } from '../model/resources.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { sha256Hex } from '../util/sha256.js';

export interface TokenFileSnapshot {
  /** Absolute path. */
  path: string;
  content: TokenFileContent;
  /** sha-256 of the file as read (never the token itself); null when there was no file. */
  digest: string | null;
}

async function snapshot(path: string): Promise<TokenFileSnapshot> {
  let bytes: Buffer;
  try {
    bytes = await fs.promises.readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { path, content: { exists: false }, digest: null };
    // A directory or an unreadable file: it exists, and holds no token we could recognise.
    return { path, content: { exists: true }, digest: `unreadable:${code ?? 'error'}` };
  }
  const first = bytes.toString('utf8').split(/\r?\n/, 1)[0]?.trim() ?? '';
  return { path, content: { exists: true, ...(first ? { token: first } : {}) }, digest: sha256Hex(bytes) };
}

/** By declared key name: what its token file holds now. */
export async function readTokenFiles(desired: DesiredState): Promise<Map<string, TokenFileSnapshot>> {
  const out = new Map<string, TokenFileSnapshot>();
  await Promise.all(
    desired.resources.map(async (resource) => {
      const file = resource.options?.tokenFile;
      if (resource.kind === 'apiKey' && typeof file === 'string') out.set(resource.name, await snapshot(resolve(desired.projectDir, file)));
    }),
  );
  return out;
}

/** Why a token could not be written to `path` (a problem for the preflight), or undefined when it can. */
export async function tokenFileWriteProblem(path: string): Promise<string | undefined> {
  const info = await fs.promises.stat(path).catch(() => undefined);
  if (info && !info.isFile()) return 'it exists and is not a regular file';
  // The nearest existing ancestor must be a writable directory (missing ones are created).
  let dir = dirname(path);
  for (;;) {
    const found = await fs.promises.stat(dir).catch(() => undefined);
    if (found) {
      if (!found.isDirectory()) return `${relative(process.cwd(), dir) || dir} is not a directory`;
      break;
    }
    const parent = dirname(dir);
    if (parent === dir) return 'no existing directory to create it in';
    dir = parent;
  }
  try {
    await fs.promises.access(dir, constants.W_OK | constants.X_OK);
  } catch {
    return `the directory ${relative(process.cwd(), dir) || dir} is not writable`;
  }
  return undefined;
}

/**
 * Writes a new key's token (mode 0600). `expected` is the file as the plan saw it: a file that was
 * absent is created only if still absent (exclusive); one that existed (a token the preflight
 * allowed to replace) is replaced only if unchanged. Anything else means another writer got
 * there first, and its token must not be destroyed.
 */
export async function writeTokenFile(expected: TokenFileSnapshot, token: string): Promise<void> {
  const shown = relative(process.cwd(), expected.path) || expected.path;
  const hint = 'another apply may be running at once; run plan again to see which key the file belongs to';
  if (expected.digest === null) {
    try {
      await writeFileAtomic(expected.path, `${token}\n`, { mode: 0o600, exclusive: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST')
        throw new UserError(`token file ${shown} appeared since the plan: refusing to overwrite it`, hint);
      throw error;
    }
    return;
  }
  const now = await snapshot(expected.path);
  if (now.digest !== expected.digest) throw new UserError(`token file ${shown} changed since the plan: refusing to overwrite it`, hint);
  await writeFileAtomic(expected.path, `${token}\n`, { mode: 0o600 });
}
