// Build step, for the bundle (scripts/build.mjs), after its precompiled validators are written: their
// V8 code cache, made with the CLI's V8 settings in effect (V8 checks its flags before using a
// cache), after validating the example projects' documents so that it holds what a run compiles.
// Run once per V8 mode (AGENTFORM_V8_MODE=full|lean|parse|small): each mode's flags need their own cache.
import { v8Choice } from '../util/v8-tuning.js';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { useCodeCachesOf } from '../util/code-cache.js';
import { DOCUMENT_KINDS, type SchemaName, writePrecompiledCodeCache } from './schemas.js';
import { yamlLibrary } from './yaml-source.js';

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'schemas' ? [] : yamlFiles(path);
    return /\.ya?ml$/.test(entry) ? [path] : [];
  });
}

useCodeCachesOf(v8Choice?.mode ?? 'full');
const examples = process.argv[2];
if (!examples) throw new Error('usage: write-code-cache <examples folder>');
const samples: Array<{ name: SchemaName; data: unknown }> = [];
for (const file of yamlFiles(examples)) {
  for (const document of yamlLibrary().parseAllDocuments(readFileSync(file, 'utf8'))) {
    const data = document.toJS() as { kind?: unknown } | null;
    const kind = DOCUMENT_KINDS.find((known) => known === data?.kind);
    if (kind) samples.push({ name: kind, data });
    else if (file.endsWith('agentform.yaml')) samples.push({ name: 'root', data });
  }
}
// No top-level await: the bundle this runs from is CommonJS (scripts/build.mjs).
writePrecompiledCodeCache(samples).catch((error: unknown) => {
  process.stderr.write(`write-code-cache: ${String(error)}\n`);
  process.exitCode = 1;
});
