// AgentTemplate documents: read beside the resources, then resolved into the agents that extend
// them (template-resolution.ts) once every file is read, so a template in any file serves an agent
// in any other. Resolution runs on every load, after the parse cache: a changed template changes
// every agent that extends it although the agents' own files come back from the cache unchanged.
import type { JsonObject, JsonValue } from '../model/resources.js';
import { checkTemplate, type FilledParameter, resolveTemplate, type Template, type TemplateParameter, type TemplateProblem } from './template-resolution.js';
import type { PathSegment, ProblemList } from './problems.js';
import type { LocatedDocument } from './yaml-source.js';

/** What resolution reads and sets of a resource document (project.ts's ResourceDocument). */
export interface TemplatedDocument {
  source: LocatedDocument;
  overlays: Record<string, JsonObject>;
  spec?: JsonObject;
  valid: boolean;
  extends?: string;
  params?: JsonObject;
  inherited?: LocatedDocument[];
  filledParameters?: FilledParameter<LocatedDocument>[];
}

/** One AgentTemplate document as written. */
export type TemplateDocument = Template<LocatedDocument>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A template document, when its schema check passed (a failed one is reported already). */
export function readTemplate(source: LocatedDocument, value: Record<string, unknown>): TemplateDocument | undefined {
  if (typeof value.name !== 'string' || !isObject(value.spec)) return undefined;
  const params: Record<string, TemplateParameter> = {};
  if (isObject(value.params)) {
    for (const [name, raw] of Object.entries(value.params))
      params[name] = isObject(raw) && raw.default !== undefined ? { default: raw.default as JsonValue } : {};
  }
  return {
    name: value.name,
    ...(typeof value.extends === 'string' ? { extends: value.extends } : {}),
    params,
    spec: value.spec,
    source,
  };
}

/**
 * Checks the templates (unique names, no cycle) and gives each agent that extends one its merged
 * spec and the templates it came from (`inherited`, for locating values). An agent whose template
 * cannot be resolved is left without spec and marked invalid: its problems are reported here.
 */
export function resolveTemplates(documents: TemplatedDocument[], templates: TemplateDocument[], problems: ProblemList): void {
  const byName = new Map<string, TemplateDocument>();
  const found: TemplateProblem<LocatedDocument>[] = [];
  for (const template of templates) {
    const first = byName.get(template.name);
    if (first) {
      const at = first.source.locate(['name']);
      problems.error(`duplicate AgentTemplate "${template.name}" (first declared at ${at.file}:${at.line}:${at.col})`, template.source.locate(['name']), [
        'name',
      ]);
      continue;
    }
    byName.set(template.name, template);
  }
  for (const template of byName.values()) checkTemplate(template, byName, found);
  for (const document of documents) {
    if (document.extends === undefined) continue;
    const resolved = resolveTemplate(
      { extends: document.extends, params: document.params ?? {}, ...(document.spec ? { spec: document.spec } : {}), source: document.source },
      byName,
      found,
    );
    if (!resolved) {
      document.valid = false;
      continue;
    }
    document.spec = resolved.spec;
    document.inherited = resolved.chain.map((template) => template.source);
    document.filledParameters = resolved.filled;
  }
  for (const problem of found) problems.error(problem.message, problem.source.locate(problem.path, problem.target), problem.path);
}

/** A document that writes (part of) a spec value, and where in it the value is. */
export interface SpecLayer {
  source: LocatedDocument;
  /** The path, in `source`, of the spec path asked for (or of the nearest part of it written there). */
  path: PathSegment[];
}

/** One place a spec may take its values from: whether it writes a spec path, and where. */
interface Layer {
  source: LocatedDocument;
  writes(part: readonly PathSegment[]): boolean;
  pathOf(path: readonly PathSegment[]): PathSegment[];
}

function specOf(source: LocatedDocument, prefix: readonly PathSegment[] = ['spec']): Layer {
  return { source, writes: (part) => source.has([...prefix, ...part]), pathOf: (path) => [...prefix, ...path] };
}

function startsWith(path: readonly PathSegment[], prefix: readonly PathSegment[]): boolean {
  return prefix.length <= path.length && prefix.every((segment, index) => path[index] === segment);
}

/** A parameter's value filled in whole at `filled.path`: written under the agent's params, or as a template's default. */
function parameterValue(filled: FilledParameter<LocatedDocument>, target: 'key' | 'value'): Layer {
  const { source, path: at } = filled.value;
  // The key a template fills with `${param:NAME}` is the template's: a problem with the key itself
  // (unknown, misspelt) is located there, not at the value passed in.
  const minimum = target === 'key' ? filled.path.length + 1 : filled.path.length;
  return {
    source,
    writes: (part) => part.length >= minimum && startsWith(part, filled.path) && source.has([...at, ...part.slice(filled.path.length)]),
    pathOf: (path) => [...at, ...path.slice(filled.path.length)],
  };
}

/**
 * Where a value of a document's spec is written for one environment: in the environment's overlay
 * when it sets the value, else in the document's spec, else in the nearest template that writes it
 * — or, where that template wrote nothing but `${param:NAME}`, where the parameter's value is
 * written (the agent's `params`, or the declaring template's default). A value nobody writes whole
 * (a parameter's mapping merged into a template's, say) is located where the most of its path is written.
 */
export function specLayer(
  document: Pick<TemplatedDocument, 'source' | 'overlays' | 'inherited' | 'filledParameters'>,
  environment: string,
  path: readonly PathSegment[],
  target: 'key' | 'value' = 'value',
): SpecLayer {
  const { source } = document;
  const own = specOf(source);
  const found = (layer: Layer): SpecLayer => ({ source: layer.source, path: layer.pathOf(path) });
  if (document.overlays[environment]) {
    const overlay = specOf(source, ['overlays', environment]);
    if (overlay.writes(path)) return found(overlay);
  }
  if (!document.inherited) return found(own);
  // The spec's name is the agent's own (build fills it from the document's name when the spec does
  // not write it), never a template's, even when the agent writes no spec.
  if (path[0] === 'name') return source.has(['spec', 'name']) ? found(own) : { source, path: [...path] };
  const layers: Layer[] = [own];
  for (const template of document.inherited) {
    for (const filled of document.filledParameters ?? []) if (filled.template === template) layers.push(parameterValue(filled, target));
    layers.push(specOf(template));
  }
  for (let length = path.length; length >= 0; length--) {
    const part = path.slice(0, length);
    for (const layer of layers) if (layer.writes(part)) return found(layer);
  }
  return found(own);
}
