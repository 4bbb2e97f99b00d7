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
  /** Problems added with addFoundIn: where each is in items, and the users it was found in. */
  private readonly shared = new Map<string, { index: number; users: string[] }>();

  add(problem: Problem): void {
    problem = withoutKeys(problem);
    const key = keyOf(problem);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.items.push(problem);
  }

  /**
   * A problem of something several users share (a template's value, found while checking each
   * agent that extends it): one problem at its location, naming the users it was found in (up to
   * three, then how many more), whichever environment's build finds it.
   */
  addFoundIn(problem: Problem, kind: string, user: string): void {
    problem = withoutKeys(problem);
    const key = keyOf(problem);
    const found = this.shared.get(key);
    if (found?.users.includes(user)) return;
    const users = [...(found?.users ?? []), user];
    const shown = { ...problem, message: `${problem.message} (${namedUsers(kind, users)})` };
    if (found) {
      found.users = users;
      this.items[found.index] = withoutKeys(shown);
    } else {
      this.shared.set(key, { index: this.items.length, users });
      this.items.push(withoutKeys(shown));
    }
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

const MAX_NAMED_USERS = 3;

/** `agent "a"`, `agents "a" and "b"`, `agents "a", "b", "c" and 2 more`. */
function namedUsers(kind: string, users: readonly string[]): string {
  const named = users.slice(0, MAX_NAMED_USERS).map((user) => JSON.stringify(user));
  const more = users.length - named.length;
  if (users.length === 1) return `${kind} ${named[0]}`;
  const list = more > 0 ? `${named.join(', ')} and ${more} more` : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
  return `${kind}s ${list}`;
}

/** Last line of defence: a message never carries something shaped like an API key. */
function withoutKeys(problem: Problem): Problem {
  if (LITERAL_KEY_ANYWHERE.test(problem.message)) problem = { ...problem, message: problem.message.replace(LITERAL_KEY_ANYWHERE_GLOBAL, 'svc_…') };
  if (problem.jsonPath && LITERAL_KEY_ANYWHERE.test(problem.jsonPath))
    problem = { ...problem, jsonPath: problem.jsonPath.replace(LITERAL_KEY_ANYWHERE_GLOBAL, 'svc_…') };
  return problem;
}

function keyOf(problem: Problem): string {
  return `${problem.severity}|${problem.location?.file}:${problem.location?.line}:${problem.location?.col}|${problem.message}`;
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
