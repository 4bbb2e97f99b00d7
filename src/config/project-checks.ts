// Checks that do not depend on one environment: environment names in selectors and overlays,
// duplicate declarations, and literal API keys anywhere in the YAML.
import type { PathSegment, ProblemList } from './problems.js';
import type { Project, ResourceDocument } from './project.js';
import { didYouMean } from './suggest.js';
import type { LocatedDocument } from './yaml-source.js';

/** `svc_<env>_<secret>`: a real API key. Never echoed, wherever it appears. */
const LITERAL_KEY = /(?<![A-Za-z0-9])svc_[A-Za-z0-9-]+_[A-Za-z0-9]{6,}/;

/** The environments a document exists in, in declaration order. */
export function environmentsOf(document: ResourceDocument, project: Project): string[] {
  const declared = Object.keys(project.environments);
  const selected = document.environments ? declared.filter((name) => document.environments!.includes(name)) : declared;
  return document.exceptEnvironments ? selected.filter((name) => !document.exceptEnvironments!.includes(name)) : selected;
}

export function checkProject(project: Project, problems: ProblemList): void {
  const environmentNames = Object.keys(project.environments);
  const { root } = project;
  if (project.defaultEnvironment !== undefined && !project.environments[project.defaultEnvironment]) {
    problems.error(
      `defaultEnvironment "${project.defaultEnvironment}" is not an environment of this project${didYouMean(project.defaultEnvironment, environmentNames)}`,
      root.locate(['defaultEnvironment']),
      ['defaultEnvironment'],
    );
  }
  const slugOwners = new Map<string, string>();
  for (const environment of Object.values(project.environments)) {
    const owner = slugOwners.get(environment.slug);
    if (owner) {
      const hasSlug = root.has(['environments', environment.name, 'slug']);
      problems.error(
        `environments ${owner} and ${environment.name} both use the slug "${environment.slug}": each environment needs its own`,
        root.locate(hasSlug ? ['environments', environment.name, 'slug'] : ['environments', environment.name], hasSlug ? 'value' : 'key'),
        ['environments', environment.name, 'slug'],
      );
    }
    slugOwners.set(environment.slug, environment.name);
  }
  for (const environment of Object.values(project.environments)) {
    const source = environment.credential?.source;
    if (source !== undefined && !/^\$\{env:[A-Za-z_][A-Za-z0-9_]*\}$/.test(source) && !LITERAL_KEY.test(source)) {
      const path = ['environments', environment.name, 'token'];
      problems.error(
        `token must be \${env:NAME} (e.g. \${env:AGENTFORM_${environment.name.toUpperCase().replace(/-/g, '_')}_TOKEN}): a literal key is not allowed here`,
        root.locate(path),
        path,
      );
    }
  }
  findLiteralKeys(root, root.value, [], problems);
  for (const document of project.documents) {
    findLiteralKeys(document.source, document.source.value, [], problems);
    checkSelectors(document, environmentNames, problems);
    checkOverlayEnvironments(document, project, problems);
  }
  checkDuplicates(project, problems);
}

/** `path` is a stack shared by the whole walk (it visits every value of every file): copied only to report. */
function findLiteralKeys(source: LocatedDocument, value: unknown, path: PathSegment[], problems: ProblemList): void {
  if (typeof value === 'string') {
    // The plain search first: the pattern (with its look-behind) on every string of every file
    // was most of this walk, and a key always contains `svc_`.
    if (value.includes('svc_') && LITERAL_KEY.test(value)) {
      const at = [...path];
      problems.error('a literal API key (svc_…) must never be written in configuration: read it with ${env:NAME} instead', source.locate(at), at);
    }
  } else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      path.push(index);
      findLiteralKeys(source, value[index], path, problems);
      path.pop();
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const key in value) {
      path.push(key);
      findLiteralKeys(source, (value as Record<string, unknown>)[key], path, problems);
      path.pop();
    }
  }
}

function checkSelectors(document: ResourceDocument, environmentNames: string[], problems: ProblemList): void {
  for (const field of ['environments', 'exceptEnvironments'] as const) {
    document[field]?.forEach((name, index) => {
      if (!environmentNames.includes(name)) {
        problems.error(
          `unknown environment "${name}"${didYouMean(name, environmentNames)} (agentform.yaml declares ${environmentNames.join(', ') || 'none'})`,
          document.source.locate([field, index]),
          [field, index],
        );
      }
    });
  }
  if (document.environments && document.exceptEnvironments) {
    problems.error('use either environments or exceptEnvironments, not both', document.source.locate(['exceptEnvironments'], 'key'), ['exceptEnvironments']);
  }
}

function checkOverlayEnvironments(document: ResourceDocument, project: Project, problems: ProblemList): void {
  const declared = Object.keys(project.environments);
  const present = environmentsOf(document, project);
  const value = document.source.value as { overlays?: unknown };
  if (typeof value.overlays !== 'object' || value.overlays === null) return;
  for (const environment of Object.keys(value.overlays)) {
    const path = ['overlays', environment];
    if (!declared.includes(environment)) {
      problems.error(
        `overlay for unknown environment "${environment}"${didYouMean(environment, declared)} (agentform.yaml declares ${declared.join(', ') || 'none'})`,
        document.source.locate(path, 'key'),
        path,
      );
    } else if (!present.includes(environment)) {
      problems.error(
        `overlay for environment "${environment}", where ${document.kind} "${document.name}" does not exist (see its environments selector)`,
        document.source.locate(path, 'key'),
        path,
      );
    }
  }
}

function where(document: ResourceDocument): string {
  const location = document.source.locate(['name']);
  return `${location.file}:${location.line}:${location.col}`;
}

function checkDuplicates(project: Project, problems: ProblemList): void {
  const byAddress = new Map<string, ResourceDocument[]>();
  for (const document of project.documents) {
    const key = `${document.kind}/${document.name}`;
    const list = byAddress.get(key) ?? [];
    list.push(document);
    byAddress.set(key, list);
  }
  for (const documents of byAddress.values()) {
    for (let later = 1; later < documents.length; later++) {
      const document = documents[later] as ResourceDocument;
      const mine = environmentsOf(document, project);
      for (let earlier = 0; earlier < later; earlier++) {
        const first = documents[earlier] as ResourceDocument;
        const overlap = environmentsOf(first, project).filter((name) => mine.includes(name));
        if (overlap.length === 0) continue;
        const selectors = document.environments || document.exceptEnvironments || first.environments || first.exceptEnvironments;
        const message = selectors
          ? `${document.kind} "${document.name}" is declared twice for environment${overlap.length === 1 ? '' : 's'} ${overlap.join(', ')} (also at ${where(first)})`
          : `duplicate ${document.kind} "${document.name}" (first declared at ${where(first)})`;
        problems.error(message, document.source.locate(['name']), ['name']);
        break;
      }
    }
  }
}
