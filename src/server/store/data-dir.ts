// The data dir holds the database, the server key and credentials.json: like PostgreSQL, refuse
// to run on one that other users can read or write into (0700 or 0750 are fine). It is created
// 0700 when missing; like initdb, an empty one of ours is tightened to 0700 instead of refused.
import { chmodSync, mkdirSync, readdirSync, statSync, type Stats } from 'node:fs';
import { ServerSetupError } from './sealed.js';

const isOpenToOthers = (stat: Stats): boolean => (stat.mode & 0o777 & 0o027) !== 0;

export function ensurePrivateDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  let stat = statSync(dataDir);
  if (!stat.isDirectory()) throw new ServerSetupError(`the data dir ${dataDir} is not a directory`);
  // `mkdir data && agentform server --data data` (0755 under the usual umask, or a benchmark's
  // mkdirSync): nothing in it could have been read, so it is made private rather than refused.
  // Checked empty again after the chmod, in case another user wrote into it meanwhile.
  if (isOpenToOthers(stat) && stat.uid === process.getuid?.() && readdirSync(dataDir).length === 0) {
    chmodSync(dataDir, 0o700);
    if (readdirSync(dataDir).length === 0) stat = statSync(dataDir);
  }
  if (isOpenToOthers(stat)) {
    const mode = stat.mode & 0o777;
    throw new ServerSetupError(
      `the data dir ${dataDir} has mode ${mode.toString(8).padStart(4, '0')}: other users could read the control plane's secrets or write into it. ` +
        `It must be u=rwx (0700) or u=rwx,g=rx (0750): run chmod 700 ${dataDir}`,
    );
  }
}
