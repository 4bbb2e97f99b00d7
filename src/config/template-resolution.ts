// Agent templates: an agent `extends` a template (which may extend another) and passes `params`;
// its spec is the chain's specs merged by the overlay rules (src/config/merge.ts), root template
// first, the agent's own spec last, with every `${param:NAME}` of a template filled in. Pure: the
// caller says where each template is written (`S`) and turns the problems into located ones
// (templates.ts). Pure: no I/O, like merge.ts beside it.
import type { JsonObject, JsonValue } from '../model/resources.js';
import { parseTemplate } from './interpolate.js';
import { mergeOverlay } from './merge.js';
import { didYouMean } from './suggest.js';

export type Segment = string | number;

export interface TemplateParameter {
  /** Absent: the parameter is required. */
  default?: JsonValue;
}

export interface Template<S> {
  name: string;
  extends?: string;
  params: Record<string, TemplateParameter>;
  spec: JsonObject;
  source: S;
}

export interface TemplateUser<S> {
  extends: string;
  params: JsonObject;
  spec?: JsonObject;
  source: S;
}

/** A problem at `path` of the document `source` (a key when `target` says so). */
export interface TemplateProblem<S> {
  message: string;
  source: S;
  path: Segment[];
  target?: 'key' | 'value';
}

/** Where a parameter's value is written: the agent's `params` entry, or the `default` of the template that declares it. */
export interface ParameterSource<S> {
  source: S;
  path: Segment[];
}

/**
 * A spec value that is a parameter's value whole (its template wrote nothing but `${param:NAME}`
 * there): it is located, and its `${file:}` resolved, where the value is written, not in the template.
 */
export interface FilledParameter<S> {
  /** The template that wrote `${param:NAME}`, and the spec path it wrote it at (without `spec`). */
  template: S;
  path: Segment[];
  value: ParameterSource<S>;
}

export interface ResolvedTemplate<S> {
  spec: JsonObject;
  /** The templates the spec came from, nearest first. */
  chain: Template<S>[];
  filled: FilledParameter<S>[];
}

/** `path` of a spec as text, for a message: `limits.maxTurns`, `tools[0].name`. */
function specPathText(path: readonly Segment[]): string {
  return path.map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : index === 0 ? segment : `.${segment}`)).join('');
}

const PARAM_PREFIX = '${param:';

/**
 * The templates an agent (or template) extends, nearest first; undefined when one is unknown (a
 * problem) or the chain comes back to itself (a problem of the templates: see checkTemplate).
 */
export function templateChain<S>(
  first: { extends: string; source: S; name?: string },
  templates: ReadonlyMap<string, Template<S>>,
  problems: TemplateProblem<S>[],
): Template<S>[] | undefined {
  const chain: Template<S>[] = [];
  let from: { extends?: string; source: S; name?: string } = first;
  while (from.extends !== undefined) {
    const next = templates.get(from.extends);
    if (!next) {
      problems.push({
        message: `unknown template "${from.extends}"${didYouMean(from.extends, [...templates.keys()])}`,
        source: from.source,
        path: ['extends'],
      });
      return undefined;
    }
    if (chain.includes(next) || next.name === first.name) {
      // Reported once, by the cycle's first template by name (checkTemplate runs for every one).
      const cycle =
        next.name === first.name ? [next.name, ...chain.map((template) => template.name)] : chain.slice(chain.indexOf(next)).map((template) => template.name);
      if (first.name !== undefined && first.name === [...cycle].sort()[0]) {
        problems.push({ message: `templates extend each other in a cycle: ${[...cycle, first.name].join(' → ')}`, source: from.source, path: ['extends'] });
      }
      return undefined;
    }
    chain.push(next);
    from = next;
  }
  return chain;
}

/** A user's spec resolved against its templates; undefined (with problems) when it cannot be. */
export function resolveTemplate<S>(
  user: TemplateUser<S>,
  templates: ReadonlyMap<string, Template<S>>,
  problems: TemplateProblem<S>[],
): ResolvedTemplate<S> | undefined {
  const chain = templateChain(user, templates, problems);
  if (!chain) return undefined;
  // One namespace over the chain: the nearest template's declaration of a name wins.
  const declared = new Map<string, TemplateParameter & { by: Template<S> }>();
  for (const template of chain)
    for (const [name, parameter] of Object.entries(template.params)) if (!declared.has(name)) declared.set(name, { ...parameter, by: template });
  const values = new Map<string, JsonValue>();
  const written = new Map<string, ParameterSource<S>>();
  let complete = true;
  for (const [name, value] of Object.entries(user.params)) {
    if (declared.has(name)) {
      values.set(name, value);
      written.set(name, { source: user.source, path: ['params', name] });
    } else {
      complete = false;
      const known = [...declared.keys()];
      problems.push({
        message: `unknown parameter "${name}" of template "${user.extends}" (${known.length > 0 ? `it takes ${known.join(', ')}` : 'it takes none'})${didYouMean(name, known)}`,
        source: user.source,
        path: ['params', name],
        target: 'key',
      });
    }
  }
  const missing = [...declared].filter(([name, parameter]) => !values.has(name) && parameter.default === undefined).map(([name]) => name);
  for (const [name, parameter] of declared) {
    if (values.has(name) || parameter.default === undefined) continue;
    values.set(name, parameter.default);
    written.set(name, { source: parameter.by.source, path: ['params', name, 'default'] });
  }
  if (missing.length > 0) {
    complete = false;
    problems.push({
      message: `template "${user.extends}" needs parameter${missing.length === 1 ? '' : 's'} ${missing.map((name) => `"${name}"`).join(', ')}: pass ${missing.length === 1 ? 'it' : 'them'} under params`,
      source: user.source,
      path: ['extends'],
    });
  }
  if (!complete) return undefined;
  let spec: JsonObject = {};
  let filledAll = true;
  const filled: FilledParameter<S>[] = [];
  for (const template of [...chain].reverse()) {
    const filledSpec = fillParams(
      template.spec,
      values,
      (message, path, parameter) => {
        filledAll = false;
        // A value that cannot go where the template uses it is the value's problem: it is located
        // where it is written, and says where it is used.
        const value = parameter === undefined ? undefined : written.get(parameter);
        if (value) problems.push({ message: `${message} (used in template "${template.name}" at spec.${specPathText(path)})`, ...value });
        else problems.push({ message, source: template.source, path: ['spec', ...path] });
      },
      (parameter, path) => {
        const value = written.get(parameter);
        if (value) filled.push({ template: template.source, path, value });
      },
    );
    spec = mergeOverlay(spec, filledSpec as JsonObject);
  }
  // A spec with a reference left in it would only add problems that follow from this one.
  if (!filledAll) return undefined;
  if (user.spec) spec = mergeOverlay(spec, user.spec);
  return { spec, chain, filled };
}

/**
 * A template's own problems, whoever extends it: a cycle or unknown template in its chain, and a
 * `${param:NAME}` that neither it nor a template it extends declares.
 */
export function checkTemplate<S>(template: Template<S>, templates: ReadonlyMap<string, Template<S>>, problems: TemplateProblem<S>[]): void {
  const chain = template.extends === undefined ? [] : templateChain({ ...template, extends: template.extends }, templates, problems);
  if (!chain) return;
  const declared = new Map<string, JsonValue>();
  for (const each of [template, ...chain]) for (const name of Object.keys(each.params)) declared.set(name, '');
  fillParams(template.spec, declared, (message, path) => problems.push({ message, source: template.source, path: ['spec', ...path] }));
}

/**
 * `value` with each `${param:NAME}` replaced: a string that is nothing but one reference takes the
 * parameter's value whatever its type (`whole` is told); within other text the value must be a
 * scalar (else `report` names the parameter). Other `${…}` references and `$${` escapes are left
 * for interpolation.
 */
export function fillParams(
  value: JsonValue,
  params: ReadonlyMap<string, JsonValue>,
  report: (message: string, path: Segment[], parameter?: string) => void,
  whole?: (parameter: string, path: Segment[]) => void,
  path: Segment[] = [],
): JsonValue {
  if (typeof value === 'string')
    return value.includes(PARAM_PREFIX)
      ? fillString(
          value,
          params,
          (message, parameter) => report(message, path, parameter),
          (parameter) => whole?.(parameter, path),
        )
      : value;
  if (Array.isArray(value)) return value.map((item, index) => fillParams(item, params, report, whole, [...path, index]));
  if (value !== null && typeof value === 'object') {
    const out: JsonObject = {};
    for (const key in value) out[key] = fillParams(value[key] as JsonValue, params, report, whole, [...path, key]);
    return out;
  }
  return value;
}

function fillString(
  text: string,
  params: ReadonlyMap<string, JsonValue>,
  report: (message: string, parameter?: string) => void,
  whole: (parameter: string) => void,
): JsonValue {
  let out = '';
  let index = 0;
  while (index < text.length) {
    if (text.startsWith('$${', index)) {
      out += '$${';
      index += 3;
      continue;
    }
    if (!text.startsWith(PARAM_PREFIX, index)) {
      out += text[index];
      index++;
      continue;
    }
    const end = text.indexOf('}', index);
    if (end === -1) {
      report('unterminated "${param:": add the closing "}"');
      return text;
    }
    const name = text.slice(index + PARAM_PREFIX.length, end);
    const value = params.get(name);
    if (value === undefined) {
      report(`unknown parameter "${name}": declare it under params of this template${didYouMean(name, [...params.keys()])}`);
      return text;
    }
    if (index === 0 && end === text.length - 1) {
      whole(name);
      return value;
    }
    // A null inside text would read "null": only a whole value can be null (the field left unset).
    if (value === null) {
      report(`parameter "${name}" is null: only a value that is nothing but \${param:${name}} can be null`, name);
      return text;
    }
    if (typeof value === 'object') {
      report(`parameter "${name}" is ${Array.isArray(value) ? 'a list' : 'a mapping'}: only a value that is nothing but \${param:${name}} can take it`, name);
      return text;
    }
    // Its path would be read relative to the template's file, not to the file that wrote the value.
    if (typeof value === 'string' && readsFile(value)) {
      report(`parameter "${name}" reads a file (\${file:}): only a value that is nothing but \${param:${name}} can`, name);
      return text;
    }
    out += String(value);
    index = end + 1;
  }
  return out;
}

/** Whether a parameter's text holds a `${file:}` reference (a syntax error is interpolation's to report). */
function readsFile(text: string): boolean {
  try {
    return parseTemplate(text).some((part) => 'reference' in part && part.reference.type === 'file');
  } catch {
    return false;
  }
}
