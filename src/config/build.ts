// One environment's DesiredState from the Project: selectors, overlays, promotion, interpolation,
// write-only values, per-kind spec shapes (src/model/resources.ts) and the reference checks.
import { resolve } from 'node:path';
import { formatLocation, type SourceLocation } from '../errors.js';
import {
  CONNECTION_AUTH_PREFIX,
  type DesiredResource,
  type DesiredState,
  type EnvironmentTarget,
  type JsonObject,
  type JsonValue,
  type Reference,
  type ResourceKind,
  type WriteOnlyValue,
} from '../model/resources.js';
import { checkSubagents } from './subagent-checks.js';
import { hasUnsetEnv, type InterpolationContext, interpolateString, interpolateValue, writeOnlyValue } from './interpolation-context.js';
import { envReferenceName } from './interpolate.js';
import { withoutNulls } from '../model/json.js';
import { mergeOverlay } from './merge.js';
import { formatJsonPath, type PathSegment, ProblemList } from './problems.js';
import { environmentsOf } from './project-checks.js';
import type { Project, ProjectRoot, Promotion, ResourceDocument } from './project.js';
import { reportSchemaErrors } from './schema-errors.js';
import { specLayer } from './templates.js';
import { validators } from './schemas.js';
import { didYouMean } from './suggest.js';
import { agentDefinitionReferences } from '../engine/references.js';

export interface BuildOptions {
  processEnv: NodeJS.ProcessEnv;
  /** Report unset ${env:} variables. */
  checkEnv: boolean;
  /** With checkEnv off: where the unset ${env:} variables checkEnv would report go (InterpolationContext). */
  deferredEnvProblems?: ProblemList;
  /** Report unset ${env:} variables of write-only values. */
  checkWriteOnlyEnv: boolean;
  /** What an unset ${env:} reads as, unreported (InterpolationContext). */
  unsetEnv?: string;
  fileCache: Map<string, string | null>;
  /** Receives every API key `tokenFile` built, for the check that no two keys share one. */
  tokenFiles?: TokenFileUse[];
}

/** One API key's token file in one environment. */
export interface TokenFileUse {
  environment: string;
  address: string;
  /** Absolute path; undefined when it names an unset ${env:} (it cannot be compared). */
  path: string | undefined;
  location: SourceLocation;
  jsonPath: PathSegment[];
}

/** A reference that names nothing in this environment; aggregated over environments by the caller. */
export interface DanglingReference {
  environment: string;
  /** How many environments the referring resource exists in. */
  environmentsOfReferrer: number;
  from: string;
  target: Reference;
  candidates: string[];
  location: SourceLocation;
  path: PathSegment[];
}

/** A reference with the document path it was found at, for locating problems (computed on demand). */
interface LocatedReference extends Reference {
  segments: () => PathSegment[];
  locate: () => SourceLocation;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Where an environment is and which credential it uses: needs agentform.yaml only, no resource file. */
export function environmentTarget(project: ProjectRoot, environment: string, options: BuildOptions, problems: ProblemList): EnvironmentTarget {
  const settings = project.environments[environment];
  if (!settings) throw new Error(`unknown environment ${environment}`);
  return {
    name: settings.name,
    slug: settings.slug,
    url: interpolateString(settings.url, [], rootContextOf(project, environment, options, problems)(['environments', environment, 'url'])),
    prune: settings.prune,
    ...(settings.pruneApiKeys ? { pruneApiKeys: true } : {}),
    ...(settings.maxDeleteShare !== undefined ? { maxDeleteShare: settings.maxDeleteShare } : {}),
    ...(settings.maxRequestBytes !== undefined ? { maxRequestBytes: settings.maxRequestBytes } : {}),
    ...(settings.strictTools ? { strictTools: true } : {}),
    ...(settings.credential ? { credential: resolveCredential(settings.credential.source, options.processEnv) } : {}),
  };
}

function rootContextOf(
  project: ProjectRoot,
  environment: string,
  options: BuildOptions,
  problems: ProblemList,
): (basePath: PathSegment[]) => InterpolationContext {
  const variables = project.environments[environment]?.variables ?? {};
  return (basePath) => ({
    sourceFile: project.root.absolutePath,
    variables,
    processEnv: options.processEnv,
    checkEnv: options.checkEnv,
    ...(options.deferredEnvProblems ? { deferredEnvProblems: options.deferredEnvProblems } : {}),
    checkWriteOnlyEnv: options.checkWriteOnlyEnv,
    ...(options.unsetEnv !== undefined ? { unsetEnv: options.unsetEnv } : {}),
    locate: (path) => project.root.locate([...basePath, ...path]),
    reportedPath: (path) => [...basePath, ...path],
    problems,
    fileCache: options.fileCache,
  });
}

export function buildEnvironment(
  project: Project,
  environment: string,
  options: BuildOptions,
  problems: ProblemList,
  dangling: DanglingReference[],
): DesiredState {
  const settings = project.environments[environment];
  if (!settings) throw new Error(`unknown environment ${environment}`);
  const rootContext = rootContextOf(project, environment, options, problems);
  const target = environmentTarget(project, environment, options, problems);
  const resources: DesiredResource[] = [];
  const locatedReferences = new Map<DesiredResource, LocatedReference[]>();
  if (project.organization) {
    resources.push({
      kind: 'organization',
      name: 'current',
      spec: interpolateValue({ name: project.organization.name }, [], rootContext(['organization'])) as JsonObject,
      writeOnly: {},
      references: [],
      location: project.root.locate(['organization'], 'key'),
    });
  }
  if (settings.settings) {
    resources.push({
      kind: 'environment',
      name: settings.slug,
      spec: interpolateValue(settings.settings, [], rootContext(['environments', environment, 'settings'])) as JsonObject,
      writeOnly: {},
      references: [],
      location: project.root.locate(['environments', environment, 'settings'], 'key'),
    });
  }
  for (const document of project.documents) {
    const present = environmentsOf(document, project);
    if (!present.includes(environment)) continue;
    for (const { resource, references } of buildDocument(document, environment, project, options, problems)) {
      resources.push(resource);
      locatedReferences.set(resource, references);
    }
  }
  checkGrantNames(resources, problems);
  checkReferences(resources, locatedReferences, project, environment, dangling);
  checkSubagents(resources, locatedReferences, problems);
  return { projectDir: project.dir, target, resources };
}

function resolveCredential(source: string, processEnv: NodeJS.ProcessEnv): WriteOnlyValue {
  const name = envReferenceName(source);
  const value = name ? processEnv[name] : undefined;
  return { source, ...(value ? { value } : {}) };
}

function promotionFor(document: ResourceDocument, environment: string, project: Project, problems: ProblemList): Promotion | undefined {
  const raw = document.overlayPromote[environment];
  if (raw === undefined)
    return document.promote && document.promote.from !== environment ? document.promote : checkSelfPromotion(document, environment, problems);
  const path = ['overlays', environment, 'promote'];
  if (!isObject(raw) || typeof raw.from !== 'string' || typeof raw.version !== 'number' || !Number.isInteger(raw.version) || raw.version < 1) {
    problems.error('promote must be {from: <environment>, version: <integer ≥ 1>}', document.source.locate(path), path);
    return undefined;
  }
  const unknownKeys = Object.keys(raw).filter((key) => key !== 'from' && key !== 'version');
  for (const key of unknownKeys)
    problems.error(`unknown key "${key}" in promote${didYouMean(key, ['from', 'version'])}`, document.source.locate([...path, key], 'key'), [...path, key]);
  const names = Object.keys(project.environments);
  if (!names.includes(raw.from)) {
    problems.error(`promote from unknown environment "${raw.from}"${didYouMean(raw.from, names)}`, document.source.locate([...path, 'from']), [
      ...path,
      'from',
    ]);
    return undefined;
  }
  if (raw.from === environment) {
    problems.error(`an environment cannot promote from itself ("${environment}")`, document.source.locate([...path, 'from']), [...path, 'from']);
    return undefined;
  }
  return { from: raw.from, version: raw.version };
}

function checkSelfPromotion(document: ResourceDocument, environment: string, problems: ProblemList): undefined {
  if (document.promote && document.promote.from === environment) {
    problems.error(
      `${document.kind} "${document.name}" promotes from "${environment}" into "${environment}" itself: limit it with environments/exceptEnvironments or use an overlay`,
      document.source.locate(['promote', 'from']),
      ['promote', 'from'],
    );
  }
  return undefined;
}

interface Built {
  resource: DesiredResource;
  references: LocatedReference[];
}

function buildDocument(document: ResourceDocument, environment: string, project: Project, options: BuildOptions, problems: ProblemList): Built[] {
  const { source } = document;
  const overlay = document.overlays[environment];
  const promotion = document.kind === 'Agent' ? promotionFor(document, environment, project, problems) : undefined;
  // Locates a spec path where it was written: in this environment's overlay when it sets it, else
  // in the spec, else in the template that gave it (templates.ts).
  const locateSpec = (path: readonly PathSegment[], target: 'key' | 'value' = 'value'): SourceLocation => {
    const layer = specLayer(document, environment, path, target);
    return layer.source.locate(layer.path, target);
  };
  const specPath = (path: readonly PathSegment[], target: 'key' | 'value' = 'value'): PathSegment[] => specLayer(document, environment, path, target).path;
  if (!document.spec && !overlay && !promotion) {
    if (document.kind === 'Agent' && document.valid) {
      problems.error(`Agent "${document.name}" has neither spec nor promote (for environment ${environment})`, source.locate(['name']), ['name']);
    }
    return [];
  }
  const merged = overlay ? mergeOverlay(document.spec ?? {}, overlay) : (document.spec ?? {});
  if (document.valid && (overlay || promotion || document.inherited || document.partialSpec)) {
    const validate = validators().specs[document.kind];
    if (!validate(withoutNulls(merged))) {
      // A problem in a template's value is located in the template: one problem however many agents
      // extend it, naming them. In the agent's own document, its location says which agent it is.
      // A spec that leaves keys to overlays can lack them in some environments only: name those.
      const byEnvironment = !document.inherited && !overlay && !promotion;
      // A templated agent with overlays elsewhere: the environment says why this one lacks a key.
      const inEnvironment = document.inherited !== undefined && !overlay && !promotion && Object.keys(document.overlays).length > 0;
      const found = document.inherited || byEnvironment ? new ProblemList() : problems;
      const inTemplate = new Set<string>();
      const locateFound = (path: readonly PathSegment[], target?: 'key' | 'value'): SourceLocation => {
        const location = locateSpec(path.slice(1), target);
        if (specLayer(document, environment, path.slice(1), target).source !== source) inTemplate.add(formatLocation(location));
        return location;
      };
      reportSchemaErrors(validate.errors ?? [], document.kind, ['spec'], locateFound, found, {
        skipRequiredAtSpecRoot: promotion !== undefined,
        reportedPath: (path, target) => specPath(path.slice(1), target),
      });
      if (found !== problems)
        for (const problem of found.items) {
          if (byEnvironment) {
            problems.addFoundIn(problem, 'environment', environment);
            continue;
          }
          const shown = inEnvironment ? { ...problem, message: `${problem.message} (environment "${environment}")` } : problem;
          if (problem.location && inTemplate.has(formatLocation(problem.location))) problems.addFoundIn(shown, 'agent', document.name);
          else problems.add(shown);
        }
    }
  }
  const context: InterpolationContext = {
    sourceFile: source.absolutePath,
    ...(document.inherited ? { sourceFileOf: (path: readonly PathSegment[]) => specLayer(document, environment, path).source.absolutePath } : {}),
    variables: project.environments[environment]?.variables ?? {},
    processEnv: options.processEnv,
    checkEnv: options.checkEnv,
    ...(options.deferredEnvProblems ? { deferredEnvProblems: options.deferredEnvProblems } : {}),
    checkWriteOnlyEnv: options.checkWriteOnlyEnv,
    ...(options.unsetEnv !== undefined ? { unsetEnv: options.unsetEnv } : {}),
    locate: (path) => locateSpec(path),
    reportedPath: (path) => specPath(path),
    problems,
    fileCache: options.fileCache,
  };
  const base = {
    name: document.name,
    ...(document.protect ? { protect: true } : {}),
    location: source.locate(['name']),
  };
  const located = (kind: ResourceKind, name: string, segments: PathSegment[]): LocatedReference => ({
    kind,
    name,
    path: formatJsonPath(segments),
    segments: () => specPath(segments),
    locate: () => locateSpec(segments),
  });
  switch (document.kind) {
    case 'Agent': {
      let spec = interpolateValue(merged, [], context) as JsonObject;
      if (Object.keys(spec).length > 0 && spec.name === undefined) spec = { name: document.name, ...spec };
      const references = agentReferences(spec, located);
      return [
        {
          resource: {
            kind: 'agent',
            ...base,
            spec,
            writeOnly: {},
            references: references.map(plainReference),
            ...(promotion ? { promotion: { fromEnvironment: promotion.from, version: promotion.version } } : {}),
          },
          references,
        },
      ];
    }
    case 'Provider': {
      const { secret, ...rest } = merged;
      const writeOnly: Record<string, WriteOnlyValue> = {};
      if (secret !== undefined && secret !== null) {
        const value = isObject(secret)
          ? writeOnlyValue(secret.value, { value: secret.rotatedAt, path: ['secret', 'rotatedAt'] }, ['secret', 'value'], context)
          : writeOnlyValue(secret, undefined, ['secret'], context);
        if (value) writeOnly.secret = value;
      }
      return [{ resource: { kind: 'provider', ...base, spec: interpolateValue(rest, [], context) as JsonObject, writeOnly, references: [] }, references: [] }];
    }
    case 'Secret': {
      const writeOnly: Record<string, WriteOnlyValue> = {};
      const value = writeOnlyValue(merged.value, { value: merged.rotatedAt, path: ['rotatedAt'] }, ['value'], context);
      if (value) writeOnly.value = value;
      return [{ resource: { kind: 'secret', ...base, spec: {}, writeOnly, references: [] }, references: [] }];
    }
    case 'ApiKey': {
      const { tokenFile, ...rest } = merged;
      if (typeof tokenFile === 'string') {
        options.tokenFiles?.push({
          environment,
          address: `apiKey/${document.name}`,
          path: hasUnsetEnv(tokenFile, options.processEnv) ? undefined : resolve(project.dir, interpolateString(tokenFile, ['tokenFile'], quietly(context))),
          location: locateSpec(['tokenFile']),
          jsonPath: specPath(['tokenFile']),
        });
      }
      return [
        {
          resource: {
            kind: 'apiKey',
            ...base,
            spec: interpolateValue(rest, [], context) as JsonObject,
            writeOnly: {},
            references: [],
            ...(typeof tokenFile === 'string' ? { options: { tokenFile: interpolateString(tokenFile, ['tokenFile'], context) } } : {}),
          },
          references: [],
        },
      ];
    }
    case 'Connection': {
      const { grants, auth, ...rest } = merged;
      const spec = interpolateValue(rest, [], context) as JsonObject;
      const authParts = connectionAuth(auth, context);
      if (authParts.spec !== undefined) spec.auth = authParts.spec;
      const out: Built[] = [{ resource: { kind: 'connection', ...base, spec, writeOnly: authParts.writeOnly, references: [] }, references: [] }];
      if (Array.isArray(grants)) {
        grants.forEach((grant, index) => {
          if (!isObject(grant) || !isObject(grant.identity)) return;
          const identity = interpolateValue(grant.identity, ['grants', index, 'identity'], context) as JsonObject;
          if (typeof identity.scope !== 'string' || typeof identity.id !== 'string') return;
          const writeOnly: Record<string, WriteOnlyValue> = {};
          const token = writeOnlyValue(
            grant.accessToken,
            { value: grant.rotatedAt, path: ['grants', index, 'rotatedAt'] },
            ['grants', index, 'accessToken'],
            context,
          );
          if (token) writeOnly.accessToken = token;
          const connectionReference: LocatedReference = { ...located('connection', document.name, ['grants', index]), path: 'connection' };
          out.push({
            resource: {
              kind: 'grant',
              name: `${document.name}:${identity.scope}:${identity.id}`,
              spec: { connection: document.name, identity: { scope: identity.scope, id: identity.id } },
              writeOnly,
              references: [plainReference(connectionReference)],
              ...(document.protect ? { protect: true } : {}),
              location: locateSpec(['grants', index]),
            },
            references: [connectionReference],
          });
        });
      }
      return out;
    }
  }
}

/** The context with every problem dropped, deferred ones too. */
function quietly(context: InterpolationContext): InterpolationContext {
  const { deferredEnvProblems: _dropped, ...rest } = context;
  return { ...rest, problems: new ProblemList() };
}

/**
 * A connection's `auth`: `type` is compared and shown like any field. Every other field, whatever
 * its name (the API does not list them), is write-only: `${env:}`/`${file:}`, or `{value, rotatedAt}`
 * like a provider secret, kept under `auth.<field>` and never in the spec. A null (an overlay's
 * reset) leaves the field out.
 */
function connectionAuth(auth: JsonValue | undefined, context: InterpolationContext): { spec?: JsonValue; writeOnly: Record<string, WriteOnlyValue> } {
  const writeOnly: Record<string, WriteOnlyValue> = {};
  if (!isObject(auth)) return { ...(auth !== undefined ? { spec: interpolateValue(auth, ['auth'], context) } : {}), writeOnly };
  const spec: JsonObject = {};
  for (const [field, raw] of Object.entries(auth)) {
    if (field === 'type') {
      spec.type = interpolateValue(raw, ['auth', 'type'], context);
      continue;
    }
    if (raw === null) continue;
    const value = isObject(raw)
      ? writeOnlyValue(raw.value, { value: raw.rotatedAt, path: ['auth', field, 'rotatedAt'] }, ['auth', field, 'value'], context)
      : writeOnlyValue(raw, undefined, ['auth', field], context);
    if (value) writeOnly[`${CONNECTION_AUTH_PREFIX}${field}`] = value;
  }
  return { spec, writeOnly };
}

function plainReference(reference: LocatedReference): Reference {
  return { kind: reference.kind, name: reference.name, path: reference.path };
}

function agentReferences(spec: JsonObject, located: (kind: ResourceKind, name: string, segments: PathSegment[]) => LocatedReference): LocatedReference[] {
  return agentDefinitionReferences(spec).map((reference) => located(reference.kind, reference.name, reference.segments));
}

function checkGrantNames(resources: DesiredResource[], problems: ProblemList): void {
  const seen = new Set<string>();
  for (const resource of resources) {
    if (resource.kind !== 'grant') continue;
    if (seen.has(resource.name)) {
      problems.error(
        `duplicate grant for identity ${resource.name.split(':').slice(1).join(':')} in connection "${String(resource.spec.connection)}"`,
        resource.location,
      );
    }
    seen.add(resource.name);
  }
}

function checkReferences(
  resources: DesiredResource[],
  located: Map<DesiredResource, LocatedReference[]>,
  project: Project,
  environment: string,
  dangling: DanglingReference[],
): void {
  const names = new Map<ResourceKind, Set<string>>();
  for (const resource of resources) {
    const set = names.get(resource.kind) ?? new Set<string>();
    set.add(resource.name);
    names.set(resource.kind, set);
  }
  for (const resource of resources) {
    for (const reference of located.get(resource) ?? []) {
      if (names.get(reference.kind)?.has(reference.name)) continue;
      const document = project.documents.find((candidate) => candidate.kind.toLowerCase() === resource.kind.toLowerCase() && candidate.name === resource.name);
      dangling.push({
        environment,
        environmentsOfReferrer: document ? environmentsOf(document, project).length : 1,
        from: `${resource.kind}/${resource.name}`,
        target: plainReference(reference),
        candidates: [...(names.get(reference.kind) ?? [])],
        location: reference.locate(),
        path: reference.segments(),
      });
    }
  }
}
