// The `ignore:` rules of agentform.yaml (engine/ignore.ts applies them): read from the root
// document, and checked: a rule past its `until` is an error (an exception nobody renewed must be
// looked at again), one that names nothing declared is a warning (a typo ignores nothing).
import type { SourceLocation } from '../errors.js';
import { addressMatches } from '../engine/address-glob.js';
import { expiredRules, type IgnoreRule, indexIntoWholeArray, isoDay, ruleLabel, unmatchedRules } from '../engine/ignore.js';
import type { JsonObject, ResourceKind } from '../model/resources.js';
import type { ProblemList } from './problems.js';
import type { Project, ProjectRoot } from './project.js';

export interface LocatedIgnoreRule extends IgnoreRule {
  /** Position in the `ignore` list. */
  index: number;
  location: SourceLocation;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The well-formed rules of agentform.yaml (the schema reports the others). */
export function ignoreRulesOf(root: ProjectRoot['root']): LocatedIgnoreRule[] {
  const value = isObject(root.value) ? root.value.ignore : undefined;
  if (!Array.isArray(value)) return [];
  const rules: LocatedIgnoreRule[] = [];
  value.forEach((raw, index) => {
    if (!isObject(raw) || typeof raw.resource !== 'string' || typeof raw.field !== 'string' || typeof raw.reason !== 'string') return;
    rules.push({
      resource: raw.resource,
      field: raw.field,
      reason: raw.reason,
      ...(typeof raw.until === 'string' ? { until: raw.until } : {}),
      index,
      location: root.locate(['ignore', index]),
    });
  });
  return rules;
}

/** The address a document declares: `Agent` support → `agent/support`. */
function addressOfDocument(kind: string, name: string): string {
  return `${kind.charAt(0).toLowerCase()}${kind.slice(1)}/${name}`;
}

/** The whole-compared array a rule's field indexes into, in any resource the rule names. */
function wholeArrayIndexed(rule: IgnoreRule, declared: ReadonlyArray<{ address: string; specs: readonly JsonObject[] }>): string | undefined {
  if (!/\[\d+\]/.test(rule.field)) return undefined;
  for (const resource of declared) {
    if (!addressMatches(rule.resource, resource.address)) continue;
    const kind = resource.address.slice(0, resource.address.indexOf('/')) as ResourceKind;
    for (const spec of resource.specs) {
      const array = indexIntoWholeArray(kind, rule.field, spec);
      if (array !== undefined) return array;
    }
  }
  return undefined;
}

/** Expired rules (errors) and rules that match nothing declared (warnings). `today`: YYYY-MM-DD. */
export function checkIgnoreRules(project: Project, problems: ProblemList, today: string = isoDay(new Date())): void {
  const rules = ignoreRulesOf(project.root);
  if (rules.length === 0) return;
  for (const rule of expiredRules(rules, today)) {
    problems.error(
      `ignore rule "${ruleLabel(rule)}" expired on ${rule.until} (${rule.reason}): remove it to manage the field again, or move its until date if the exception still holds`,
      project.root.locate(['ignore', rule.index, 'until']),
      ['ignore', rule.index, 'until'],
    );
  }
  // With a file unread, the resource may well be declared in it.
  if (project.unreadFiles.length > 0) return;
  const declared = project.documents.map((document) => ({
    address: addressOfDocument(document.kind, document.name),
    specs: [document.spec ?? {}, ...Object.values(document.overlays)] as JsonObject[],
  }));
  const refused = new Set<LocatedIgnoreRule>();
  for (const rule of rules) {
    const array = wholeArrayIndexed(rule, declared);
    if (array === undefined) continue;
    refused.add(rule);
    problems.error(
      `ignore rule "${ruleLabel(rule)}": ${array} is compared as a whole list, so plan never names one element of it and an index matches nothing: ignore the whole field ${array}`,
      project.root.locate(['ignore', rule.index, 'field']),
      ['ignore', rule.index, 'field'],
    );
  }
  for (const rule of unmatchedRules(rules, declared)) {
    if (refused.has(rule)) continue;
    problems.warning(`ignore rule "${ruleLabel(rule)}" matches no declared resource with that field: it ignores nothing`, rule.location, [
      'ignore',
      rule.index,
    ]);
  }
}
