// An error as the lines a person reads: where, what, and what to do. Shared by the terminal report
// (cli/report-error.ts) and the pull-request comment, which shows why an environment was not planned.
import { ApiError, ProblemsError, UserError, formatLocation } from '../errors.js';
import { visible } from './visible.js';

/** The lines of an error; `maxProblems` caps a ProblemsError's list (a comment has a size limit). */
export function errorLines(error: unknown, maxProblems = Number.POSITIVE_INFINITY): string[] {
  if (error instanceof ProblemsError) {
    const shown = error.problems
      .slice(0, maxProblems)
      .map((problem) => (problem.location ? `${formatLocation(problem.location)}: ${problem.message}` : problem.message));
    const more = error.problems.length > shown.length ? [`... +${error.problems.length - shown.length} more`] : [];
    return [...shown, ...more, error.message];
  }
  if (error instanceof UserError) {
    const where = error.location ? `${formatLocation(error.location)}: ` : '';
    return [`Error: ${where}${error.message}`, ...(error.hint ? [`  ${error.hint}`] : [])];
  }
  if (error instanceof ApiError) {
    const status = error.status ? ` (HTTP ${error.status})` : '';
    return [`Error: ${visible(error.rpc)}: ${visible(error.code)}${status}: ${visible(error.message)}`];
  }
  return [`Error: ${error instanceof Error ? error.message : String(error)}`];
}
