// The options of `agentform drift`, shared by its registration (index.ts) and run module.
export interface DriftCommandOptions {
  /** -C/--dir: the project directory, when not given as the argument. */
  dir?: string;
  env?: string;
  allEnvs?: boolean;
  json?: boolean;
  markdown?: boolean;
  checkTools?: boolean;
}
