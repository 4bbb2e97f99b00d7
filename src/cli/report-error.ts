import { ApiError, ProblemsError, UserError, formatLocation } from '../errors.js';

/** Prints an error for a person and returns the exit code. Stack traces only for bugs under --debug. */
export function reportError(error: unknown, debug: boolean): number {
  const write = (line: string) => process.stderr.write(`${line}\n`);
  if (error instanceof ProblemsError) {
    for (const problem of error.problems) {
      write(problem.location ? `${formatLocation(problem.location)}: ${problem.message}` : problem.message);
    }
    write(error.message);
    return error.exitCode;
  }
  if (error instanceof UserError) {
    const where = error.location ? `${formatLocation(error.location)}: ` : '';
    write(`Error: ${where}${error.message}`);
    if (error.hint) write(`  ${error.hint}`);
    return error.exitCode;
  }
  if (error instanceof ApiError) {
    const status = error.status ? ` (HTTP ${error.status})` : '';
    write(`Error: ${error.rpc}: ${error.code}${status}: ${error.message}`);
    return 1;
  }
  write(`agentform: internal error: ${error instanceof Error ? error.message : String(error)}`);
  write('  This is a bug in agentform; run again with --debug and report it.');
  if (debug && error instanceof Error && error.stack) write(error.stack);
  return 1;
}
