// Error classes shared by every layer. Only src/cli/main.ts turns them into exit codes and text;
// everything else throws. An error that is not one of these is a bug and is reported as such.

export interface SourceLocation {
  file: string;
  line: number;
  col: number;
}

export function formatLocation(loc: SourceLocation): string {
  return `${loc.file}:${loc.line}:${loc.col}`;
}

/** A problem with what the user gave us (flags, files, credentials): no stack trace, exit 1. */
export class UserError extends Error {
  override readonly name: string = 'UserError';
  readonly exitCode: number = 1;
  constructor(
    message: string,
    readonly hint?: string,
    readonly location?: SourceLocation,
  ) {
    super(message);
  }
}

/** The user asked to stop (SIGINT, declined confirmation). */
export class AbortedError extends UserError {
  override readonly name = 'AbortedError';
  override readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** An error answer from the Control API, or a failure to reach it. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly rpc: string,
    /** HTTP status, or 0 when no HTTP answer arrived (connection refused, reset, timeout). */
    readonly status: number,
    /** The API error code (`not_found`, `unavailable`, ...) or a transport code (`connection_refused`, `timeout`). */
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly requestId?: string,
  ) {
    super(message);
  }

  /** Whether the operation is missing on the server (an assumed operation it does not offer). */
  get isUnimplemented(): boolean {
    return this.code === 'unimplemented';
  }
}

/** A set of located problems, e.g. from validation; printed one per line. */
export class ProblemsError extends Error {
  override readonly name = 'ProblemsError';
  readonly exitCode = 1;
  constructor(
    message: string,
    readonly problems: ReadonlyArray<{ message: string; location?: SourceLocation }>,
  ) {
    super(message);
  }
}
