// Problems as text (file:line:col: message), JSON, and GitHub Actions annotations.
import { relative, resolve } from 'node:path';
import type { Problem } from '../config/problems.js';
import { escapeData, escapeProperty } from '../util/workflow-commands.js';

export interface RenderOptions {
  /** Locations are relative to the project; printed relative to the working directory. */
  projectDir: string;
  json: boolean;
  githubActions: boolean;
  cwd?: string;
}

function fileFor(problem: Problem, options: RenderOptions): string | undefined {
  if (!problem.location) return undefined;
  return relative(options.cwd ?? process.cwd(), resolve(options.projectDir, problem.location.file)) || problem.location.file;
}

export function problemLine(problem: Problem, options: RenderOptions): string {
  const file = fileFor(problem, options);
  const where = file && problem.location ? `${file}:${problem.location.line}:${problem.location.col}: ` : '';
  const severity = problem.severity === 'warning' ? 'warning: ' : '';
  const path = problem.jsonPath ? `${problem.jsonPath}: ` : '';
  return `${where}${severity}${path}${problem.message}`;
}

export function renderProblems(problems: readonly Problem[], options: RenderOptions): string {
  const errors = problems.filter((problem) => problem.severity === 'error').length;
  const warnings = problems.length - errors;
  if (options.json) {
    const data = {
      valid: errors === 0,
      errors,
      warnings,
      problems: problems.map((problem) => ({
        severity: problem.severity,
        message: problem.message,
        ...(problem.location ? { file: fileFor(problem, options), line: problem.location.line, col: problem.location.col } : {}),
        ...(problem.jsonPath ? { jsonPath: problem.jsonPath } : {}),
      })),
    };
    return `${JSON.stringify(data, null, 2)}\n`;
  }
  const lines = problems.map((problem) => problemLine(problem, options));
  if (options.githubActions) {
    for (const problem of problems) {
      const file = fileFor(problem, options);
      const properties = file && problem.location ? ` file=${escapeProperty(file)},line=${problem.location.line},col=${problem.location.col}` : '';
      const message = problem.jsonPath ? `${problem.jsonPath}: ${problem.message}` : problem.message;
      lines.push(`::${problem.severity === 'warning' ? 'warning' : 'error'}${properties}::${escapeData(message)}`);
    }
  }
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  lines.push(
    errors === 0
      ? `The configuration is valid${warnings > 0 ? ` (${plural(warnings, 'warning')})` : ''}.`
      : `${plural(errors, 'error')}, ${plural(warnings, 'warning')}.`,
  );
  return `${lines.join('\n')}\n`;
}
