import { ApiError, ProblemsError, UserError, describeError, formatLocation } from '../errors.js';
import { visible, visibleLines } from '../render/visible.js';

/**
 * Prints an error and returns the exit code. For a person: text, stack traces only for bugs under
 * --debug. With --json: one JSON object `{"error": {code, fault, message, ...}}` on stderr instead
 * (stdout keeps only the command's own JSON), so scripts can match the stable code.
 * Text reports show every control character as `\uXXXX` (render/visible.ts): messages quote names
 * from servers and files. Our own messages may span lines; a server's message is kept to one.
 */
export function reportError(error: unknown, debug: boolean, json = false): number {
  const write = (line: string) => process.stderr.write(`${visibleLines(line)}\n`);
  if (json) {
    const report = describeError(error);
    const { exitCode, ...printed } = report;
    write(JSON.stringify({ error: printed }));
    if (debug && report.code === 'internal' && error instanceof Error && error.stack) write(error.stack);
    return exitCode;
  }
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
    write(`Error: ${visible(error.rpc)}: ${visible(error.code)}${status}: ${visible(error.message)}`);
    return 1;
  }
  write(`agentform: internal error: ${error instanceof Error ? error.message : String(error)}`);
  write('  This is a bug in agentform; run again with --debug and report it.');
  if (debug && error instanceof Error && error.stack) write(error.stack);
  return 1;
}
