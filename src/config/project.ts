// The Project: the root file and the resource documents, read and checked against the schemas.
// Everything environment-specific (overlays, interpolation, references) happens in build.ts.
import { closeSync, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceLocation } from '../errors.js';
import type { EnvironmentTarget, JsonObject } from '../model/resources.js';
import { resourceFiles, ROOT_FILE, ROOT_FILE_ALTERNATIVE } from './files.js';
import type { ProblemList } from './problems.js';
import { hasNullField, withoutNulls } from '../model/json.js';
import { isWarningOnly, passesSchema } from './schema-errors.js';
import { DOCUMENT_KINDS, type DocumentKind, TEMPLATE_KIND, validators } from './schemas.js';
import type { FilledParameter } from './template-resolution.js';
import { readTemplate, resolveTemplates, type TemplateDocument } from './templates.js';
import { openParseCache, type ParseCache } from './parse-cache.js';
import { didYouMean } from './suggest.js';
import { type LocatedDocument, locatedDocuments, type ParsedFile, parseYamlText } from './yaml-source.js';

export interface Promotion {
  from: string;
  version: number;
}

/** One resource document (`kind: Agent`, ...) as written, before overlays and interpolation. */
export interface ResourceDocument {
  kind: DocumentKind;
  name: string;
  source: LocatedDocument;
  /** The environments selector as written (names are checked in project-checks.ts). */
  environments?: string[];
  exceptEnvironments?: string[];
  protect: boolean;
  spec?: JsonObject;
  /** Overlays by environment, without their `promote` key. */
  overlays: Record<string, JsonObject>;
  promote?: Promotion;
  /** `promote` written inside an overlay, by environment (raw: checked in build.ts). */
  overlayPromote: Record<string, unknown>;
  /** Whether the document passed its schema (semantic checks skip the parts that did not). */
  valid: boolean;
  /** Its own check let the spec lack required keys (a merge supplies them): each environment's merged spec is checked whole (build.ts). */
  partialSpec: boolean;
  /** The AgentTemplate an agent extends, and the parameters it passes (resolved by templates.ts). */
  extends?: string;
  params?: JsonObject;
  /**
   * For an agent that extends a template: the templates its spec was merged from, nearest first
   * (a value the agent does not write is located in the first of them that does).
   */
  inherited?: LocatedDocument[];
  /** For such an agent: the spec values that are a parameter's value whole, and where that is written. */
  filledParameters?: FilledParameter<LocatedDocument>[];
}

export interface ProjectEnvironment extends EnvironmentTarget {
  /** Environment settings (the `environment` resource), as written. */
  settings?: JsonObject;
  variables: Record<string, string>;
  location: SourceLocation;
}

/** What agentform.yaml alone says: enough to connect to an environment before the rest is read. */
export interface ProjectRoot {
  /** Absolute project directory. */
  dir: string;
  rootFile: string;
  root: LocatedDocument;
  environments: Record<string, ProjectEnvironment>;
  defaultEnvironment?: string;
}

export interface ReadHooks {
  /** Called once agentform.yaml is read and found valid, before the resource files are read. */
  onRoot?: (root: ProjectRoot) => void;
  /** Read without the parse cache: a one-off copy of a project (`--base`) would only leave a pack behind. */
  noParseCache?: boolean;
}

export interface Project extends ProjectRoot {
  organization?: { name: string };
  documents: ResourceDocument[];
  /** AgentTemplate documents: not resources, already merged into the agents that extend them. */
  templates: TemplateDocument[];
  /** Resource files read, relative to `dir`. */
  files: string[];
  /**
   * Files some documents of which could not be read (a YAML syntax error, a file too large): the
   * declared resources are then incomplete, so "X is not declared" would be a guess.
   */
  unreadFiles: string[];
}

/** Files larger than this are refused: a configuration file this size is a mistake. */
const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** While reads are on the wire, the parsing gives the event loop a turn after this many files. */
const FILES_BETWEEN_TURNS = 10;

/**
 * One turn of the event loop: pending I/O callbacks run. Two immediates: one set from an I/O
 * callback runs before the loop polls again, the second only after it has.
 */
async function turnOfEventLoop(): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Synchronous on purpose: a project's files are small and local, and the promise-based reads (a
 * file handle, its stat, read and close, each a round trip through the thread pool) cost more than
 * the reading itself. Nothing else waits on this thread meanwhile: the
 * live-state reads started earlier are network round trips.
 */
function readText(dir: string, file: string, problems: ProblemList): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(join(dir, file), 'r');
    const size = fstatSync(fd).size;
    if (size > MAX_FILE_BYTES) {
      problems.error(`file is too large (${size} bytes; at most ${MAX_FILE_BYTES})`, { file, line: 1, col: 1 });
      return undefined;
    }
    const buffer = readFileSync(fd);
    const text = buffer.toString('utf8');
    if (text.includes('\uFFFD') && !buffer.includes(Buffer.from('\uFFFD', 'utf8'))) {
      problems.error('not a YAML file: it is not valid UTF-8 text', { file, line: 1, col: 1 });
      return undefined;
    }
    return text.startsWith('\uFEFF') ? text.slice(1) : text;
  } catch (error) {
    problems.error(`cannot read the file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { file, line: 1, col: 1 });
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

async function findRootFile(dir: string): Promise<string> {
  for (const candidate of [ROOT_FILE, ROOT_FILE_ALTERNATIVE]) {
    try {
      if (statSync(join(dir, candidate)).isFile()) return candidate;
    } catch {
      // try the next name
    }
  }
  return ROOT_FILE;
}

/** Reads and schema-checks a project. Never throws for bad input: problems go into the list. */
export async function readProject(dir: string, problems: ProblemList, hooks: ReadHooks = {}): Promise<Project | undefined> {
  try {
    if (!statSync(dir).isDirectory()) {
      problems.error(`${dir} is not a directory`, { file: ROOT_FILE, line: 1, col: 1 });
      return undefined;
    }
  } catch {
    problems.error(`project directory ${dir} does not exist`, { file: ROOT_FILE, line: 1, col: 1 });
    return undefined;
  }
  const rootFile = await findRootFile(dir);
  const rootText = readText(dir, rootFile, problems);
  if (rootText === undefined) {
    if (problems.items.length > 0 && problems.items.at(-1)?.message.startsWith('cannot read the file: ENOENT')) {
      problems.items.pop();
      problems.error(`no ${ROOT_FILE} here: a project directory starts with one (version: 1, environments: ...)`, { file: ROOT_FILE, line: 1, col: 1 });
    }
    return undefined;
  }
  const cache = hooks.noParseCache ? undefined : openParseCache(dir);
  try {
    return await readProjectFiles(dir, rootFile, rootText, problems, hooks, cache);
  } finally {
    cache?.close();
  }
}

async function readProjectFiles(
  dir: string,
  rootFile: string,
  rootText: string,
  problems: ProblemList,
  hooks: ReadHooks,
  cache: ParseCache | undefined,
): Promise<Project | undefined> {
  const parse = (file: string, text: string): ReadBack => {
    const cached = cache?.get(file, text);
    if (cached) return { parsed: cached.parsed, knownValid: cached.schemaValid, checked: () => undefined };
    const parsed = parseYamlText(file, text);
    return { parsed, knownValid: [], checked: (schemaValid) => cache?.set(file, text, parsed, schemaValid) };
  };
  const { parsed: rootParsed, knownValid: rootKnownValid, checked: rootChecked } = parse(rootFile, rootText);
  for (const problem of rootParsed.problems) problems.add(problem);
  const rootDocuments = locatedDocuments(rootParsed, join(dir, rootFile));
  if (rootDocuments.length > 1) problems.error(`${rootFile} must hold one document, not ${rootDocuments.length}`, rootDocuments[1]?.locate([]));
  const root = rootDocuments[0];
  if (!root) {
    if (!problems.hasErrors) problems.error(`${rootFile} is empty: it needs version: 1 and environments`, { file: rootFile, line: 1, col: 1 });
    return undefined;
  }
  if (!isObject(root.value)) {
    problems.error(`${rootFile} must be a mapping with version: 1 and environments`, root.locate([]));
    return undefined;
  }
  const rootValid =
    rootKnownValid[0] === true ||
    passesSchema(validators().documents.root, withNullSettings(root.value as JsonObject), 'root', (path, target) => root.locate(path, target), problems);
  rootChecked([rootValid]);
  const rootValue = root.value;
  const environments = readEnvironments(rootValue, root);
  const defaultEnvironment = typeof rootValue.defaultEnvironment === 'string' ? { defaultEnvironment: rootValue.defaultEnvironment } : {};
  const onRoot = problems.hasErrors ? undefined : hooks.onRoot;
  const readsStarted = onRoot !== undefined;
  if (onRoot) {
    onRoot({ dir, rootFile, root, environments, ...defaultEnvironment });
    // A turn of the event loop, so that the reads the hook started connect and are sent now: what
    // follows (listing, reading and parsing the files) is synchronous and would hold them back to
    // the end, leaving the server idle meanwhile.
    await turnOfEventLoop();
  }
  const include = stringArray(rootValue.include);
  const exclude = stringArray(rootValue.exclude);

  let files: string[] = [];
  try {
    files = await resourceFiles(dir, rootFile, include, exclude);
  } catch (error) {
    problems.error(`cannot list the project files: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, root.locate([]));
  }
  const documents: ResourceDocument[] = [];
  const templates: TemplateDocument[] = [];
  const texts = files.map((file) => readText(dir, file, problems));
  const unreadFiles = files.filter((_file, index) => texts[index] === undefined);
  const sources = files.flatMap((file, index) => (texts[index] === undefined ? [] : [{ file, text: texts[index] as string }]));
  // One thread on purpose: a worker thread for part of the files was slower (each thread pays the
  // parser's cold start) and used more memory.
  for (const [index, source] of sources.entries()) {
    // Against a remote server the reads are still connecting: each step of a TCP or TLS
    // handshake (a round trip each) waits for a turn of the event loop, which parsing would
    // otherwise hold back to its end.
    if (readsStarted && index > 0 && index % FILES_BETWEEN_TURNS === 0) await turnOfEventLoop();
    readSourceFile(dir, source, parse, problems, { documents, templates }, unreadFiles);
  }

  resolveTemplates(documents, templates, problems);
  const organization = isObject(rootValue.organization) && typeof rootValue.organization.name === 'string' ? { name: rootValue.organization.name } : undefined;
  return {
    dir,
    rootFile,
    root,
    environments,
    ...defaultEnvironment,
    ...(organization ? { organization } : {}),
    documents,
    templates,
    files,
    unreadFiles,
  };
}

/** A file's parse, and where to say which of its documents passed their schema (kept with a fresh parse in the cache). */
interface ReadBack {
  parsed: ParsedFile;
  /** By document, from the parse cache: passed its schema when stored (its check is not run again). */
  knownValid: readonly boolean[];
  checked(schemaValid: readonly boolean[]): void;
}

/** One resource file: parsed (or read back from the cache), its documents read and checked. */
function readSourceFile(
  dir: string,
  { file: sourceFile, text }: { file: string; text: string },
  parse: (file: string, text: string) => ReadBack,
  problems: ProblemList,
  read: { documents: ResourceDocument[]; templates: TemplateDocument[] },
  unreadFiles: string[],
): void {
  const { parsed, knownValid, checked } = parse(sourceFile, text);
  const { file } = parsed;
  for (const problem of parsed.problems) problems.add(problem);
  if (parsed.problems.some((problem) => problem.severity === 'error')) unreadFiles.push(file);
  const located = locatedDocuments(parsed, join(dir, file));
  const schemaValid = located.map(() => false);
  let emptyDocuments = 0;
  located.forEach((source, position) => {
    if (source.value === null || source.value === undefined) {
      emptyDocuments++;
      return;
    }
    const { document, template, passed } = readDocument(source, knownValid[position] === true, problems);
    if (document) read.documents.push(document);
    if (template) read.templates.push(template);
    schemaValid[position] = passed;
  });
  checked(schemaValid);
  if (located.length === emptyDocuments && !parsed.problems.some((problem) => problem.severity === 'error')) {
    problems.error('empty file: expected one or more documents with kind, name and spec', { file, line: 1, col: 1 });
  }
}

function stringArray(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}

function readEnvironments(rootValue: Record<string, unknown>, root: LocatedDocument): Record<string, ProjectEnvironment> {
  const out: Record<string, ProjectEnvironment> = {};
  if (!isObject(rootValue.environments)) return out;
  for (const [name, raw] of Object.entries(rootValue.environments)) {
    const settings = isObject(raw) ? raw : {};
    const variables: Record<string, string> = {};
    if (isObject(settings.variables)) {
      for (const [key, value] of Object.entries(settings.variables)) {
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') variables[key] = String(value);
      }
    }
    out[name] = {
      name,
      slug: typeof settings.slug === 'string' && settings.slug ? settings.slug : name,
      url: typeof settings.url === 'string' ? settings.url : '',
      ...(typeof settings.token === 'string' ? { credential: { source: settings.token } } : {}),
      prune: settings.prune === true,
      ...(settings.pruneApiKeys === true ? { pruneApiKeys: true } : {}),
      ...(typeof settings.maxDeleteShare === 'number' ? { maxDeleteShare: settings.maxDeleteShare } : {}),
      ...(typeof settings.maxRequestBytes === 'number' ? { maxRequestBytes: settings.maxRequestBytes } : {}),
      ...(settings.strictTools === true ? { strictTools: true } : {}),
      ...(isObject(settings.settings) ? { settings: settings.settings as JsonObject } : {}),
      variables,
      location: root.locate(['environments', name], 'key'),
    };
  }
  return out;
}

/** The kinds a document may have: the resources', and templates. */
const KINDS = [...DOCUMENT_KINDS, TEMPLATE_KIND];

/** A resource document or a template, if it is one, and whether it passed its schema without a warning. */
/** `knownValid`: the parse cache says this very text passed its schema; the check is not run again. */
function readDocument(
  source: LocatedDocument,
  knownValid: boolean,
  problems: ProblemList,
): { document?: ResourceDocument; template?: TemplateDocument; passed: boolean } {
  const value = source.value;
  if (!isObject(value)) {
    problems.error('a document must be a mapping with kind, name and spec', source.locate([]));
    return { passed: false };
  }
  const kind = value.kind;
  if (kind === TEMPLATE_KIND) {
    const passed =
      knownValid || passesSchema(validators().documents.AgentTemplate, value, TEMPLATE_KIND, (path, target) => source.locate(path, target), problems);
    const template = passed ? readTemplate(source, value) : undefined;
    return { ...(template ? { template } : {}), passed };
  }
  if (typeof kind !== 'string' || !(DOCUMENT_KINDS as readonly string[]).includes(kind)) {
    if (kind === undefined) problems.error(`missing key "kind": one of ${KINDS.join(', ')}`, source.locate([]), []);
    else
      problems.error(
        `unknown kind ${JSON.stringify(typeof kind === 'string' ? kind : String(kind))}: expected one of ${KINDS.join(', ')}${typeof kind === 'string' ? didYouMean(kind, KINDS) : ''}`,
        source.locate(['kind']),
        ['kind'],
      );
    return { passed: false };
  }
  const documentKind = kind as DocumentKind;
  const { valid, onlyWarnings } = knownValid ? { valid: true, onlyWarnings: false } : checkDocument(source, documentKind, value, problems);
  if (typeof value.name !== 'string' || value.name === '') return { passed: valid };
  const overlays: Record<string, JsonObject> = {};
  const overlayPromote: Record<string, unknown> = {};
  if (isObject(value.overlays)) {
    for (const [environment, overlay] of Object.entries(value.overlays)) {
      if (!isObject(overlay)) continue;
      const { promote, ...rest } = overlay;
      if (promote !== undefined && documentKind === 'Agent') overlayPromote[environment] = promote;
      overlays[environment] = (documentKind === 'Agent' ? rest : overlay) as JsonObject;
    }
  }
  const promote =
    isObject(value.promote) && typeof value.promote.from === 'string' && typeof value.promote.version === 'number'
      ? { from: value.promote.from, version: value.promote.version }
      : undefined;
  const document: ResourceDocument = {
    kind: documentKind,
    name: value.name,
    source,
    ...(stringArray(value.environments) ? { environments: stringArray(value.environments) } : {}),
    ...(stringArray(value.exceptEnvironments) ? { exceptEnvironments: stringArray(value.exceptEnvironments) } : {}),
    protect: value.protect === true,
    ...(isObject(value.spec) ? { spec: value.spec as JsonObject } : {}),
    overlays,
    ...(promote ? { promote } : {}),
    overlayPromote,
    valid: valid || onlyWarnings,
    partialSpec: mayHavePartialSpec(documentKind, value),
    ...(documentKind === 'Agent' && typeof value.extends === 'string' ? { extends: value.extends } : {}),
    ...(documentKind === 'Agent' && isObject(value.params) ? { params: value.params as JsonObject } : {}),
  };
  return { document, passed: valid };
}

/**
 * Whether a document's spec may lack required keys: a promoted agent needs no full definition, an
 * overlay or a template gives the rest. Its merged spec is checked instead (build.ts).
 */
function mayHavePartialSpec(kind: DocumentKind, value: Record<string, unknown>): boolean {
  return kind === 'Agent' && (isObject(value.promote) || isObject(value.overlays) || typeof value.extends === 'string');
}

/** A document against the schema of its kind: whether it passed, or failed on warnings alone (reported). */
function checkDocument(
  source: LocatedDocument,
  kind: DocumentKind,
  value: Record<string, unknown>,
  problems: ProblemList,
): { valid: boolean; onlyWarnings: boolean } {
  const validate = validators().documents[kind];
  // The schema sees the spec without its nulls; most specs have none, and are checked as they are.
  const checked =
    isObject(value.spec) && !source.nullFree && hasNullField(value.spec as JsonObject) ? { ...value, spec: withoutNulls(value.spec as JsonObject) } : value;
  // The Agent schema itself leaves the spec's required fields to the merge for an agent that
  // promotes, has overlays or extends a template (its `if`), as an editor reads it; build.ts checks
  // the merged spec in full.
  const valid = passesSchema(validate, checked, kind, (path, target) => source.locate(path, target), problems);
  return { valid, onlyWarnings: !valid && (validate.errors ?? []).every(isWarningOnly) };
}

/**
 * The root document as the schema checks it: `null` in an environment's settings means "left to
 * the server" and satisfies any optional field (as in a resource spec), so it is not a type error.
 */
function withNullSettings(root: JsonObject): JsonObject {
  if (!isObject(root.environments)) return root;
  const environments: JsonObject = {};
  for (const [name, environment] of Object.entries(root.environments)) {
    environments[name] =
      isObject(environment) && isObject(environment.settings) ? { ...environment, settings: withoutNulls(environment.settings as JsonObject) } : environment;
  }
  return { ...root, environments };
}
