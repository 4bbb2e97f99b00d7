// The parse cache's file (parse-cache.ts): what made it, then entries one after the other, then an
// index of them, then a fixed-size trailer that says where the index is. A reader opens it once and
// reads each entry it needs at its offset; a writer appends entries to a temporary file and renames
// it over the pack when done, so a reader sees the old pack or the new one, never a part.
//
//   <made by>\n <text><entry JSON>\n <text><entry JSON>\n ... <index JSON>\n#agentform-pack <index offset> <index length>\n
//
// The index: {"madeBy": <its length>, "entries": {<key>: [offset, text length, JSON length], ...}}.
// "Made by" is the text of what turns a file into an entry (the parser's code, the schemas); an
// entry keeps the file's text it was made from. Both are compared byte for byte: no hashing, which
// would cost a small run more than reading them (util/sha256.ts).
import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { isRunning, temporaryPathFor } from '../util/atomic-write.js';

const TRAILER_TAG = '#agentform-pack';
// "\n#agentform-pack " + 16 digits + " " + 10 digits + "\n"
const TRAILER_BYTES = 1 + TRAILER_TAG.length + 1 + 16 + 1 + 10 + 1;
const TRAILER = /^\n#agentform-pack (\d{16}) (\d{10})\n$/;

interface Index {
  madeBy: number;
  entries: Record<string, [number, number, number]>;
}

/** An entry: the text of the file it was made from, and its JSON. */
export interface PackEntry {
  text: Buffer;
  json: Buffer;
}

export interface Pack {
  /** The entry, or undefined when it is not in the pack. */
  read(key: string): PackEntry | undefined;
  close(): void;
}

function readAt(fd: number, offset: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const got = readSync(fd, buffer, done, length - done, offset + done);
    if (got === 0) throw new Error('the pack ends early');
    done += got;
  }
  return buffer;
}

function entryAt(fd: number, at: [number, number, number]): PackEntry {
  const bytes = readAt(fd, at[0], at[1] + at[2]);
  return { text: bytes.subarray(0, at[1]), json: bytes.subarray(at[1]) };
}

const isPosition = (value: unknown): value is [number, number, number] =>
  Array.isArray(value) && value.length === 3 && value.every((n) => Number.isSafeInteger(n) && (n as number) >= 0);

/** The pack at `path` if it exists, is whole and was made by `madeBy`; undefined otherwise. Never throws. */
export function openPack(path: string, madeBy: Buffer): Pack | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    if (size < TRAILER_BYTES) throw new Error('too short');
    const trailer = TRAILER.exec(readAt(fd, size - TRAILER_BYTES, TRAILER_BYTES).toString('latin1'));
    if (!trailer) throw new Error('no trailer');
    const indexOffset = Number(trailer[1]);
    const indexLength = Number(trailer[2]);
    if (indexOffset + indexLength + TRAILER_BYTES !== size) throw new Error('the trailer does not match the size');
    const index = JSON.parse(readAt(fd, indexOffset, indexLength).toString('utf8')) as Partial<Index>;
    if (index.madeBy !== madeBy.length || typeof index.entries !== 'object' || index.entries === null) throw new Error('made by another parser');
    if (madeBy.length + 1 > indexOffset || !readAt(fd, 0, madeBy.length).equals(madeBy)) throw new Error('made by another parser');
    const entries = new Map(Object.entries(index.entries));
    const open = fd;
    return {
      read(key) {
        const at = entries.get(key);
        if (!isPosition(at) || at[0] + at[1] + at[2] > indexOffset) return undefined;
        return entryAt(open, at);
      },
      close: () => closeSync(open),
    };
  } catch {
    if (fd !== undefined) closeSync(fd);
    return undefined;
  }
}

/**
 * A new pack, written beside `path` under a temporary name (with this process's id, so that
 * another process can tell an abandoned one) and renamed over it by commit().
 */
export class PackWriter {
  private readonly temp: string;
  private fd: number | undefined;
  private offset = 0;
  private readonly entries = new Map<string, [number, number, number]>();

  constructor(
    private readonly path: string,
    private readonly madeBy: Buffer,
  ) {
    this.temp = temporaryPathFor(path);
    this.fd = openSync(this.temp, 'wx+', 0o600);
    try {
      this.write(madeBy);
      this.write(NEWLINE);
    } catch (error) {
      this.abandon();
      throw error;
    }
  }

  /** Whether `name` (in a cache directory) is the temporary file of a writer whose process is gone. */
  static isAbandonedTemp(name: string): boolean {
    const match = /^\..+\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name);
    return match !== null && !isRunning(Number(match[1]));
  }

  /** Whether this run already put `key` in the new pack. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  read(key: string): PackEntry | undefined {
    const at = this.entries.get(key);
    return at && this.fd !== undefined ? entryAt(this.fd, at) : undefined;
  }

  /** Adds an entry; one added later for the same key takes its place (a file's newer text wins). */
  append(key: string, entry: PackEntry): void {
    const at: [number, number, number] = [this.offset, entry.text.length, entry.json.length];
    this.write(entry.text);
    this.write(entry.json);
    this.write(NEWLINE);
    this.entries.set(key, at);
  }

  /** Writes the index and the trailer, and puts the pack in place. */
  commit(): void {
    const index = Buffer.from(JSON.stringify({ madeBy: this.madeBy.length, entries: Object.fromEntries(this.entries) } satisfies Index), 'utf8');
    const indexOffset = this.offset;
    this.write(index);
    this.write(Buffer.from(`\n${TRAILER_TAG} ${String(indexOffset).padStart(16, '0')} ${String(index.length).padStart(10, '0')}\n`, 'latin1'));
    closeSync(this.fd!);
    this.fd = undefined;
    renameSync(this.temp, this.path);
  }

  /** Gives up: nothing is put in place. Never throws. */
  abandon(): void {
    try {
      if (this.fd !== undefined) closeSync(this.fd);
    } catch {
      // already closed
    }
    this.fd = undefined;
    rmSync(this.temp, { force: true });
  }

  private write(bytes: Buffer): void {
    if (this.fd === undefined) throw new Error('the pack is closed');
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done, this.offset + done);
    this.offset += bytes.length;
  }
}

const NEWLINE = Buffer.from('\n');
