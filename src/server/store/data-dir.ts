// The data dir holds the database, the server key and credentials.json: like PostgreSQL, refuse
// to run on one that other users can read or write into (0700 or 0750 are fine). It is created
// 0700 when missing.
import { mkdirSync, statSync } from 'node:fs';
import { ServerSetupError } from './sealed.js';

export function ensurePrivateDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const stat = statSync(dataDir);
  if (!stat.isDirectory()) throw new ServerSetupError(`the data dir ${dataDir} is not a directory`);
  const mode = stat.mode & 0o777;
  if ((mode & 0o027) !== 0) {
    throw new ServerSetupError(
      `the data dir ${dataDir} has mode ${mode.toString(8).padStart(4, '0')}: other users could read the control plane's secrets or write into it. ` +
        `It must be u=rwx (0700) or u=rwx,g=rx (0750): run chmod 700 ${dataDir}`,
    );
  }
}
