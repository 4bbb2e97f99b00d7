// The parse cache's file (parse-cache.ts): entries one after the other, then an index of them, then
// a fixed-size trailer that says where the index is. A reader opens it once and reads each entry
// it needs at its offset; a writer appends entries to a temporary file and renames it over the
// pack when done, so a reader sees the old pack or the new one, never a part.
//
//   <entry JSON>\n <entry JSON>\n ... <index JSON>\n#agentform-pack <index offset> <index length>\n
//
// The index: {"parser": <the parser's identity>, "entries": {<key>: [offset, length], ...}}.
import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { isRunning, temporaryPathFor } from '../util/atomic-write.js';

const TRAILER_TAG = '#agentform-pack';
// "\n#agentform-pack " + 16 digits + " " + 10 digits + "\n"
const TRAILER_BYTES = 1 + TRAILER_TAG.length + 1 + 16 + 1 + 10 + 1;
const TRAILER = /^\n#agentform-pack (\d{16}) (\d{10})\n$/;

interface Index {
  parser: string;
  entries: Record<string, [number, number]>;
}

export interface Pack {
  /** The entry's bytes (UTF-8 JSON), or undefined when it is not in the pack. */
  read(key: string): Buffer | undefined;
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

/** The pack at `path` if it exists, is whole and was made by this parser; undefined otherwise. Never throws. */
export function openPack(path: string, parser: string): Pack | undefined {
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
    const index = JSON.parse(readAt(fd, indexOffset, indexLength).toString('utf8')) as Index;
    if (index.parser !== parser || typeof index.entries !== 'object' || index.entries === null) throw new Error('another parser');
    const entries = new Map(Object.entries(index.entries));
    const open = fd;
    return {
      read(key) {
        const at = entries.get(key);
        if (!at || at[0] + at[1] > indexOffset) return undefined;
        return readAt(open, at[0], at[1]);
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
  private readonly entries = new Map<string, [number, number]>();

  constructor(
    private readonly path: string,
    private readonly parser: string,
  ) {
    this.temp = temporaryPathFor(path);
    this.fd = openSync(this.temp, 'wx+', 0o600);
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

  read(key: string): Buffer | undefined {
    const at = this.entries.get(key);
    return at && this.fd !== undefined ? readAt(this.fd, at[0], at[1]) : undefined;
  }

  /** Adds an entry (once per key). */
  append(key: string, entry: string | Buffer): void {
    if (this.entries.has(key)) return;
    const bytes = typeof entry === 'string' ? Buffer.from(entry, 'utf8') : entry;
    this.write(bytes);
    this.write(NEWLINE);
    this.entries.set(key, [this.offset - bytes.length - 1, bytes.length]);
  }

  /** Writes the index and the trailer, and puts the pack in place. */
  commit(): void {
    const index = Buffer.from(JSON.stringify({ parser: this.parser, entries: Object.fromEntries(this.entries) } satisfies Index), 'utf8');
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
