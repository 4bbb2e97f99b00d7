// The leak suite's eyes: every sentinel is looked for in a command's stdout and stderr and in every
// file below the directories a command could write to. Token files the user asked for are the one
// allowed place for a token; they must be mode 0600 and are skipped by the scan.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface Sentinel {
  /** What the value is, for the failure message (never the value itself). */
  label: string;
  value: string;
}

export interface Leak {
  sentinel: string;
  where: string;
}

export function filesBelow(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesBelow(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** Where each sentinel appears in `text`. */
export function leaksIn(text: string, where: string, sentinels: readonly Sentinel[]): Leak[] {
  return sentinels.filter((s) => text.includes(s.value)).map((s) => ({ sentinel: s.label, where }));
}

export function scanOutputs(output: { stdout: string; stderr: string }, sentinels: readonly Sentinel[]): Leak[] {
  return [...leaksIn(output.stdout, 'stdout', sentinels), ...leaksIn(output.stderr, 'stderr', sentinels)];
}

/**
 * Scans every file below `roots` except `allowedTokenFiles` (absolute paths), which must be mode 0600.
 * Returns leaks, plus a pseudo-leak for an allowed token file with a wider mode.
 */
export function scanFiles(roots: readonly string[], sentinels: readonly Sentinel[], allowedTokenFiles: ReadonlySet<string>): Leak[] {
  const leaks: Leak[] = [];
  for (const root of roots) {
    for (const file of filesBelow(root)) {
      if (allowedTokenFiles.has(file)) {
        const mode = statSync(file).mode & 0o777;
        if (mode !== 0o600) leaks.push({ sentinel: `token file mode ${mode.toString(8)}`, where: file });
        continue;
      }
      leaks.push(...leaksIn(readFileSync(file).toString('latin1'), relative(root, file) || file, sentinels));
    }
  }
  return leaks;
}

/** The part of an API key that must stay secret: everything after its last `_`. */
export function keySecret(token: string): string {
  return token.slice(token.lastIndexOf('_') + 1);
}
