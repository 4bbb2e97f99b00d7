// Error classes shared by every layer. Only src/cli/main.ts turns them into exit codes and text;
// everything else throws. An error that is not one of these is a bug and is reported as such.
// Each carries a stable `code` (docs/errors.md; printed by `--json`) and who is at fault.

/** Stable error codes: scripts may match on them; the text around them may change. */
export const ERROR_CODES = {
  user_error: 'a problem with flags, files or credentials not covered by a more specific code',
  invalid_configuration: 'the project has problems; each is printed with its file:line:col',
  unknown_environment: '-e/--env names an environment the project does not declare',
  environment_required: 'the project declares several environments and none is the default: pass -e/--env',
  no_url: 'no Control API URL for the environment (flags, variables, agentform.yaml)',
  no_credential: 'no API key or cookie for the environment',
  key_environment_mismatch: 'the API key is for another environment; it was not sent anywhere',
  plan_refused:
    'the engine refuses to plan what was asked (mass delete, a cycle, a missing promotion source, a promoted agent that names what the target lacks)',
  stale_plan: 'a saved plan no longer matches the configuration or the live state',
  preflight_refused: 'apply found problems before its first write; nothing was changed',
  apply_failed: 'apply finished with failed or skipped changes',
  policy_refused: 'apply or promote refused to start: an error-severity policy finding stands (docs/policy.md); nothing was changed',
  change_window:
    'apply, promote or rollback refused: a change window of agentform.yaml is open (pass --break-glass "REASON" for an emergency); nothing was changed',
  tool_surface_differs: "a connection's live tools differ from agentform.lock.yaml: apply or lock refused (docs/tool-lock.md)",
  tool_surface_unreadable: "a connection's tools could not be read for the lock (the tool server did not answer)",
  no_terminal: 'a confirmation is needed but there is no terminal: pass --auto-approve',
  cancelled: 'the confirmation was declined (or Ctrl-C / Ctrl-D at the prompt)',
  interrupted: 'apply was interrupted (Ctrl-C); exit code 130',
  api_error: 'the Control API answered with an error or could not be reached (apiCode names it)',
  internal: 'a bug in agentform',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Who is at fault: the user (flags, files, credentials), the tool (a bug), or the service (the Control API or the network). */
export type Fault = 'user' | 'tool' | 'service';

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
  readonly fault: Fault = 'user';
  /** Set once where the error is made (withCode); user_error otherwise. */
  code: ErrorCode = 'user_error';
  constructor(
    message: string,
    readonly hint?: string,
    readonly location?: SourceLocation,
  ) {
    super(message);
  }

  /** This error with a specific stable code: `throw new UserError(...).withCode('no_url')`. */
  withCode(code: ErrorCode): this {
    this.code = code;
    return this;
  }
}

/** The user asked to stop (SIGINT, declined confirmation). */
export class AbortedError extends UserError {
  override readonly name = 'AbortedError';
  override readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
    this.code = exitCode === 130 ? 'interrupted' : 'cancelled';
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
  readonly code: ErrorCode = 'invalid_configuration';
  readonly fault: Fault = 'user';
  constructor(
    message: string,
    readonly problems: ReadonlyArray<{ message: string; location?: SourceLocation }>,
  ) {
    super(message);
  }
}

/** An error as --json prints it, and as docs/errors.md describes it. */
export interface ErrorReport {
  code: ErrorCode;
  fault: Fault;
  message: string;
  hint?: string;
  location?: SourceLocation;
  /** For api_error: the API's (or the transport's) code, and the HTTP status (0: no answer). */
  apiCode?: string;
  status?: number;
  rpc?: string;
  problems?: Array<{ message: string; location?: SourceLocation }>;
  exitCode: number;
}

export function describeError(error: unknown): ErrorReport {
  if (error instanceof ProblemsError) {
    return {
      code: error.code,
      fault: error.fault,
      message: error.message,
      problems: error.problems.map((problem) => ({ ...problem })),
      exitCode: error.exitCode,
    };
  }
  if (error instanceof UserError) {
    return {
      code: error.code,
      fault: error.fault,
      message: error.message,
      ...(error.hint ? { hint: error.hint } : {}),
      ...(error.location ? { location: error.location } : {}),
      exitCode: error.exitCode,
    };
  }
  if (error instanceof ApiError) {
    // No answer, throttling, server errors and a success answer the client cannot use (malformed)
    // are the service's; any other refusal answers the request the user's inputs made.
    const fault: Fault = error.status === 0 || error.status === 429 || error.status >= 500 || (error.status >= 200 && error.status < 300) ? 'service' : 'user';
    return { code: 'api_error', fault, message: error.message, apiCode: error.code, status: error.status, rpc: error.rpc, exitCode: 1 };
  }
  return { code: 'internal', fault: 'tool', message: error instanceof Error ? error.message : String(error), exitCode: 1 };
}
