// DIR/credentials.json: the API keys minted for the local control plane's environments, so a
// user (or a test) can pick them up. Mode 0600, replaced atomically (temp file + rename) so a
// reader never sees half a file.
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { isPlainObject } from './util.js';

export interface CredentialsFile {
  url?: string;
  environments: Record<string, { token: string }>;
}

export const CREDENTIALS_FILE = 'credentials.json';

export function credentialsPath(dataDir: string): string {
  return join(dataDir, CREDENTIALS_FILE);
}

export function readCredentials(dataDir: string): CredentialsFile {
  const file = credentialsPath(dataDir);
  if (!existsSync(file)) return { environments: {} };
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (isPlainObject(parsed) && isPlainObject(parsed.environments)) {
      const out: CredentialsFile = { environments: {} };
      if (typeof parsed.url === 'string') out.url = parsed.url;
      for (const [slug, entry] of Object.entries(parsed.environments)) {
        if (isPlainObject(entry) && typeof entry.token === 'string') out.environments[slug] = { token: entry.token };
      }
      return out;
    }
  } catch {
    // A damaged file is rewritten with fresh keys by the caller.
  }
  return { environments: {} };
}

export function writeCredentials(dataDir: string, credentials: CredentialsFile): void {
  const file = credentialsPath(dataDir);
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}
