// The `ignore:` rules of agentform.yaml (engine/ignore.ts applies them): read from the root
// document, and checked: a rule past its `until` is an error (an exception nobody renewed must be
// looked at again), one that names nothing declared is a warning (a typo ignores nothing).
import type { SourceLocation } from '../errors.js';
import { expiredRules, type IgnoreRule, isoDay, ruleLabel, unmatchedRules } from '../engine/ignore.js';
import type { JsonObject } from '../model/resources.js';
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
  for (const rule of unmatchedRules(rules, declared)) {
    problems.warning(`ignore rule "${ruleLabel(rule)}" matches no declared resource with that field: it ignores nothing`, rule.location, [
      'ignore',
      rule.index,
    ]);
  }
}
