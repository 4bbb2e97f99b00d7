// Problems found in a project: located, with the JSON path of the node, never with a secret value.
import type { SourceLocation } from '../errors.js';

export interface Problem {
  message: string;
  location?: SourceLocation;
  /** Dotted path of the node inside its document, e.g. `spec.tools[0].name`. */
  jsonPath?: string;
  severity: 'error' | 'warning';
}

const LITERAL_KEY_ANYWHERE = /svc_[A-Za-z0-9-]+_[A-Za-z0-9]+/;
const LITERAL_KEY_ANYWHERE_GLOBAL = new RegExp(LITERAL_KEY_ANYWHERE.source, 'g');

export type PathSegment = string | number;

export function formatJsonPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Collects problems, dropping exact repeats (the same check often runs once per environment). */
export class ProblemList {
  readonly items: Problem[] = [];
  private readonly seen = new Set<string>();

  add(problem: Problem): void {
    // Last line of defence: a message never carries something shaped like an API key.
    if (LITERAL_KEY_ANYWHERE.test(problem.message)) problem = { ...problem, message: problem.message.replace(LITERAL_KEY_ANYWHERE_GLOBAL, 'svc_…') };
    if (problem.jsonPath && LITERAL_KEY_ANYWHERE.test(problem.jsonPath))
      problem = { ...problem, jsonPath: problem.jsonPath.replace(LITERAL_KEY_ANYWHERE_GLOBAL, 'svc_…') };
    const key = `${problem.severity}|${problem.location?.file}:${problem.location?.line}:${problem.location?.col}|${problem.message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.items.push(problem);
  }

  error(message: string, location: SourceLocation | undefined, path?: readonly PathSegment[]): void {
    this.add({ message, severity: 'error', ...(location ? { location } : {}), ...(path && path.length > 0 ? { jsonPath: formatJsonPath(path) } : {}) });
  }

  warning(message: string, location: SourceLocation | undefined, path?: readonly PathSegment[]): void {
    this.add({ message, severity: 'warning', ...(location ? { location } : {}), ...(path && path.length > 0 ? { jsonPath: formatJsonPath(path) } : {}) });
  }

  get hasErrors(): boolean {
    return this.items.some((problem) => problem.severity === 'error');
  }

  sorted(): Problem[] {
    return [...this.items].sort(compareProblems);
  }
}

export function compareProblems(a: Problem, b: Problem): number {
  const fa = a.location?.file ?? '';
  const fb = b.location?.file ?? '';
  if (fa !== fb) return fa < fb ? -1 : 1;
  return (
    (a.location?.line ?? 0) - (b.location?.line ?? 0) ||
    (a.location?.col ?? 0) - (b.location?.col ?? 0) ||
    (a.message < b.message ? -1 : a.message > b.message ? 1 : 0)
  );
}
