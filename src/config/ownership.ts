// The ownership rules of agentform.yaml: `owns:` (project-wide), `protect:` and `forget:` (at the
// top, and per environment: an environment's entries add to the top's). Read from the root
// document as the schema checked it; the matching itself is the engine's (engine/ownership.ts).
import { type AddressRule, isOwned, matchingRule, type OwnershipRules } from '../engine/ownership.js';
import { addressOf, RESOURCE_KINDS, type ResourceKind } from '../model/resources.js';
import type { PathSegment, ProblemList } from './problems.js';
import type { Project, ProjectRoot, ResourceDocument } from './project.js';
import { environmentsOf } from './project-checks.js';
import { didYouMean } from './suggest.js';
import type { LocatedDocument } from './yaml-source.js';

type RuleList = 'owns' | 'protect' | 'forget' | '--exclude';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The rules that hold in `environment`: the top-level lists plus the environment's own. */
export function ownershipRulesOf(root: Pick<ProjectRoot, 'root'>, environment: string): OwnershipRules {
  const value = isObject(root.root.value) ? root.root.value : {};
  const environments = isObject(value.environments) ? value.environments : {};
  const settings = isObject(environments[environment]) ? environments[environment] : {};
  const base = ['environments', environment];
  const owns = ownsOf(value);
  return {
    ...(owns ? { owns } : {}),
    protect: [...rulesAt(root.root, value.protect, ['protect']), ...rulesAt(root.root, settings.protect, [...base, 'protect'])],
    forget: [...rulesAt(root.root, value.forget, ['forget']), ...rulesAt(root.root, settings.forget, [...base, 'forget'])],
  };
}

function ownsOf(root: Record<string, unknown>): string[] | undefined {
  return Array.isArray(root.owns) ? root.owns.filter((item): item is string => typeof item === 'string') : undefined;
}

/** `- agent/x` or `- {address: agent/x, reason: ...}`, each located. */
function rulesAt(source: LocatedDocument, list: unknown, path: PathSegment[]): AddressRule[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry, index): AddressRule[] => {
    const location = source.locate([...path, index]);
    if (typeof entry === 'string') return [{ pattern: entry, location }];
    if (isObject(entry) && typeof entry.address === 'string') {
      return [{ pattern: entry.address, ...(typeof entry.reason === 'string' ? { reason: entry.reason } : {}), location }];
    }
    return [];
  });
}

const KIND_OF_DOCUMENT: Readonly<Record<ResourceDocument['kind'], ResourceKind>> = {
  Agent: 'agent',
  Provider: 'provider',
  Connection: 'connection',
  Secret: 'secret',
  ApiKey: 'apiKey',
};

/**
 * Patterns that cannot match an address (no `kind/`, an unknown kind), declarations outside
 * `owns:`, and declarations the environment's `forget:` lists: each an error where it is written.
 */
export function checkOwnership(project: Project, problems: ProblemList): void {
  const { root } = project;
  const value = isObject(root.value) ? root.value : {};
  checkPatterns(root, value.owns, ['owns'], problems);
  for (const list of ['protect', 'forget'] as const) checkPatterns(root, value[list], [list], problems);
  const environments = isObject(value.environments) ? value.environments : {};
  for (const [name, settings] of Object.entries(environments)) {
    if (!isObject(settings)) continue;
    for (const list of ['protect', 'forget'] as const) checkPatterns(root, settings[list], ['environments', name, list], problems);
  }
  const rules = new Map(Object.keys(project.environments).map((environment) => [environment, ownershipRulesOf(project, environment)]));
  const owns = ownsOf(value);
  for (const document of project.documents) {
    const kind = KIND_OF_DOCUMENT[document.kind];
    const address = addressOf(kind, document.name);
    if (!isOwned(address, kind, owns)) {
      problems.error(
        `${address} is outside what this project owns (owns: ${(owns ?? []).join(', ')}): another project may manage it`,
        document.source.locate(['name']),
        ['name'],
      );
      continue;
    }
    for (const environment of environmentsOf(document, project)) {
      const forgotten = matchingRule(address, rules.get(environment)?.forget ?? []);
      if (!forgotten) continue;
      const where = forgotten.location ? ` (${forgotten.location.file}:${forgotten.location.line}:${forgotten.location.col})` : '';
      problems.error(
        `${address} is declared, and forget: ${forgotten.pattern}${where} says agentform no longer manages it in ${environment}: remove one of the two`,
        document.source.locate(['name']),
        ['name'],
      );
      break;
    }
  }
}

function checkPatterns(source: LocatedDocument, list: unknown, path: PathSegment[], problems: ProblemList): void {
  if (!Array.isArray(list)) return;
  list.forEach((entry, index) => {
    const pattern = typeof entry === 'string' ? entry : isObject(entry) && typeof entry.address === 'string' ? entry.address : undefined;
    if (pattern === undefined) return;
    const at = typeof entry === 'string' ? [...path, index] : [...path, index, 'address'];
    const problem = patternProblem(pattern, path[path.length - 1] as RuleList);
    if (problem) problems.error(problem, source.locate(at), at);
  });
}

/** Why `pattern` can never match an address, or undefined when it can. */
export function patternProblem(pattern: string, list: RuleList): string | undefined {
  const slash = pattern.indexOf('/');
  const example = `addresses look like agent/team-a-* or secret/team-a-openai`;
  if (slash <= 0 || slash === pattern.length - 1) return `${list}: "${pattern}" is not an address pattern: ${example}`;
  const kind = pattern.slice(0, slash);
  if (/[*?]/.test(kind) || (RESOURCE_KINDS as readonly string[]).includes(kind)) return undefined;
  return `${list}: unknown kind "${kind}" in "${pattern}"${didYouMean(kind, RESOURCE_KINDS)} (kinds: ${RESOURCE_KINDS.join(', ')})`;
}
