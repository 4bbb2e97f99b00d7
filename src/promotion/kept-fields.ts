// Which fields of a promoted agent keep the target environment's values: exactly the fields the
// project's overlay for the target environment sets (a model, a limit, a spend-related setting).
// Everything else comes from the source version.
import type { Project } from '../config/index.js';
import type { JsonObject, JsonValue } from '../model/resources.js';

export type FieldPath = ReadonlyArray<string>;

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The leaf paths an overlay sets. Objects merge deeply (src/config/merge.ts), so an object is
 * descended into; arrays, scalars and null replace and are leaves. An empty object sets nothing.
 */
export function overlayLeafPaths(overlay: JsonObject, prefix: string[] = []): string[][] {
  const out: string[][] = [];
  for (const [key, value] of Object.entries(overlay)) {
    if (isPlainObject(value)) out.push(...overlayLeafPaths(value, [...prefix, key]));
    else out.push([...prefix, key]);
  }
  return out;
}

/** The paths the Agent document `name` sets in its overlay for `environment` (none when there is no overlay). */
export function keptPathsFor(project: Pick<Project, 'documents'>, agentName: string, environment: string): string[][] {
  const document = project.documents.find((candidate) => candidate.kind === 'Agent' && candidate.name === agentName);
  const overlay = document?.overlays[environment];
  return overlay ? overlayLeafPaths(overlay) : [];
}

export function getPath(value: JsonValue | undefined, path: FieldPath): JsonValue | undefined {
  let current = value;
  for (const key of path) {
    if (!isPlainObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** A copy of `target` with `value` at `path`, creating (or replacing non-object) parents on the way. */
export function setPath(target: JsonObject, path: FieldPath, value: JsonValue): JsonObject {
  const [head, ...rest] = path;
  if (head === undefined) return target;
  if (rest.length === 0) return { ...target, [head]: value };
  const child = target[head];
  return { ...target, [head]: setPath(isPlainObject(child) ? child : {}, rest, value) };
}

export function formatPath(path: FieldPath): string {
  return path.join('.');
}
