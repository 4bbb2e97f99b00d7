export interface CheckCommandOptions {
  /** -C/--dir: the project directory, when not given as the argument. */
  dir?: string;
  env?: string;
  json?: boolean;
}
