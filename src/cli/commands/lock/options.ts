export interface LockCommandOptions {
  /** -C/--dir: the project directory, when not given as the argument. */
  dir?: string;
  env?: string;
  update?: boolean;
  json?: boolean;
}
