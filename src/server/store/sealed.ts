// Secrets at rest. The values the server must read back (provider secrets, secret values, grant
// tokens, connection auth, hook signing secrets) are stored sealed with AES-256-GCM under a key
// kept outside the database: AGENTFORM_SERVER_KEY, or DIR/server.key (0600, made on first start).
// A copy of the database file (a backup, a WAL left in /tmp, a bug report) then holds no secret.
// The field name is the GCM associated data, so a sealed value cannot be moved to another column.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../../errors.js';
import type Database from 'better-sqlite3';

/** The database handle (db.ts's Db, named here from better-sqlite3: db.ts imports this module). */
type Db = Database.Database;

export const SERVER_KEY_ENV = 'AGENTFORM_SERVER_KEY';
export const SERVER_KEY_FILE = 'server.key';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED_PREFIX = 'enc:v1:';
/** Base64 characters that cover the IV and the tag (28 bytes; 40 characters are 30 bytes). */
const STAMP_CHARS = 40;

/** Every column that holds a sealed value, as `table.column` (also the associated data). */
export type SealedField =
  | 'providers.secret'
  | 'secrets.value'
  | 'grants.access_token'
  | 'grants.refresh_token'
  | 'connections.auth'
  | 'connections.signing_secret';

export const SEALED_COLUMNS: Record<string, readonly string[]> = {
  providers: ['secret'],
  secrets: ['value'],
  grants: ['access_token', 'refresh_token'],
  connections: ['auth', 'signing_secret'],
};

/** A startup problem the user must fix (bad key, bad permissions): shown as one line, no stack. */
export class ServerSetupError extends UserError {
  override readonly name: string = 'ServerSetupError';
}

export class FieldCipher {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new ServerSetupError(`the server key must be ${KEY_BYTES} bytes`);
    // Stored in the database to recognise the right key; an HMAC, so it tells nothing about the key.
    this.keyId = createHmac('sha256', key).update('agentform server key id').digest('hex').slice(0, 32);
  }

  /** An empty value stays empty (it hides nothing, and "empty" keeps meaning "none"). */
  seal(field: SealedField, plain: string): string {
    if (plain === '') return '';
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(field, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${SEALED_PREFIX}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  open(field: SealedField, stored: string): string {
    if (stored === '') return '';
    if (!stored.startsWith(SEALED_PREFIX)) throw new Error(`${field} holds a value that is not sealed`);
    const raw = Buffer.from(stored.slice(SEALED_PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(field, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }

  sealNullable(field: SealedField, plain: string | null | undefined): string | null {
    return plain === null || plain === undefined ? null : this.seal(field, plain);
  }

  openNullable(field: SealedField, stored: string | null): string | null {
    return stored === null ? null : this.open(field, stored);
  }

  static isSealed(stored: string): boolean {
    return stored.startsWith(SEALED_PREFIX);
  }

  /**
   * The start of a sealed value that tells it from any other: its random IV and its tag. A copy
   * kept beside something derived from the plain value says which sealed value that was derived from.
   */
  static stampOf(stored: string): string {
    return stored.slice(0, SEALED_PREFIX.length + STAMP_CHARS);
  }
}

/** Where the key comes from: one that exists already, or a new one on a database that has none. */
export interface ServerKeySource {
  existing(): Buffer | undefined;
  create(): Buffer;
  /** For messages: `AGENTFORM_SERVER_KEY` or the key file's path. */
  readonly where: string;
}

function parseKey(text: string, where: string): Buffer {
  const value = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== KEY_BYTES || (!/^[0-9a-fA-F]{64}$/.test(value) && key.toString('base64') !== value)) {
    throw new ServerSetupError(`${where} must hold a ${KEY_BYTES}-byte key as 64 hex digits or base64 (e.g. \`openssl rand -base64 32\`)`);
  }
  return key;
}

/** AGENTFORM_SERVER_KEY when set, else DIR/server.key (created 0600 on first use). */
export function serverKeySource(dataDir: string, env: NodeJS.ProcessEnv = process.env): ServerKeySource {
  const fromEnv = env[SERVER_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    const key = parseKey(fromEnv, SERVER_KEY_ENV);
    return { existing: () => key, create: () => key, where: SERVER_KEY_ENV };
  }
  const file = join(dataDir, SERVER_KEY_FILE);
  const read = (): Buffer | undefined => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
      throw error;
    }
    if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) {
      throw new ServerSetupError(`${file} is readable by others (mode ${(statSync(file).mode & 0o777).toString(8)}): run chmod 600 ${file}`);
    }
    return parseKey(text, file);
  };
  return {
    existing: read,
    create: () => {
      // Written in full to a temp file, then linked into place: link fails if another process got
      // there first, and a reader never sees half a key. The loser uses the winner's key.
      const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      writeFileSync(temp, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
      try {
        linkSync(temp, file);
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
      } finally {
        unlinkSync(temp);
      }
      return read()!;
    },
    where: file,
  };
}

const ciphers = new WeakMap<Db, FieldCipher>();

export function attachCipher(db: Db, cipher: FieldCipher): void {
  ciphers.set(db, cipher);
}

/** The cipher of a database opened by openDatabase. */
export function cipherOf(db: Db): FieldCipher {
  const cipher = ciphers.get(db);
  if (!cipher) throw new Error('this database was not opened with openDatabase (no server key)');
  return cipher;
}
