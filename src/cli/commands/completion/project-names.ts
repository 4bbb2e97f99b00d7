// Environment names and resource addresses for completion, read straight from the project's YAML:
// no schema validation, no interpolation, no request. A file that does not parse adds nothing.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT_FILE, ROOT_FILE_ALTERNATIVE, resourceFiles } from '../../../config/files.js';
import { parseYamlText } from '../../../config/yaml-source.js';

type Mapping = Record<string, unknown>;

function isMapping(value: unknown): value is Mapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function documentsOf(path: string): unknown[] {
  try {
    return parseYamlText(path, readFileSync(path, 'utf8')).documents.map((document) => document.value);
  } catch {
    return [];
  }
}

function rootOf(dir: string): { file: string; root: Mapping } | undefined {
  for (const file of [ROOT_FILE, ROOT_FILE_ALTERNATIVE]) {
    const root = documentsOf(join(dir, file))[0];
    if (isMapping(root)) return { file, root };
  }
  return undefined;
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}

export function projectEnvironments(dir: string): string[] {
  const environments = rootOf(resolve(dir))?.root.environments;
  return isMapping(environments) ? Object.keys(environments) : [];
}

/** `agent/support`, ...: each document's kind and name, in `environment` when one is named. */
export async function projectAddresses(dir: string, environment: string | undefined): Promise<string[]> {
  const projectDir = resolve(dir);
  const found = rootOf(projectDir);
  if (!found) return [];
  const files = await resourceFiles(projectDir, found.file, strings(found.root.include), strings(found.root.exclude)).catch(() => []);
  const addresses = new Set<string>();
  for (const file of files) {
    for (const document of documentsOf(join(projectDir, file))) {
      if (!isMapping(document) || typeof document.kind !== 'string' || typeof document.name !== 'string') continue;
      if (environment !== undefined && !inEnvironment(document, environment)) continue;
      addresses.add(`${document.kind.charAt(0).toLowerCase()}${document.kind.slice(1)}/${document.name}`);
    }
  }
  return [...addresses].sort();
}

function inEnvironment(document: Mapping, environment: string): boolean {
  const only = strings(document.environments);
  const except = strings(document.exceptEnvironments);
  return (only === undefined || only.includes(environment)) && !(except ?? []).includes(environment);
}
