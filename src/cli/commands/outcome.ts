/**
 * Where a command's action leaves its exit code (a run module returns it; void means 0). main.ts
 * reads it after parsing: it is the only place that sets process.exitCode.
 */
export interface CommandOutcome {
  exitCode: number;
}
