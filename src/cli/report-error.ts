import { ApiError, ProblemsError, UserError, describeError } from '../errors.js';
import { errorLines } from '../render/error-lines.js';
import { visibleLines } from '../render/visible.js';

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
  if (error instanceof ProblemsError || error instanceof UserError || error instanceof ApiError) {
    for (const line of errorLines(error)) write(line);
    return error instanceof ApiError ? 1 : error.exitCode;
  }
  write(`agentform: internal error: ${error instanceof Error ? error.message : String(error)}`);
  write('  This is a bug in agentform; run again with --debug and report it.');
  if (debug && error instanceof Error && error.stack) write(error.stack);
  return 1;
}
