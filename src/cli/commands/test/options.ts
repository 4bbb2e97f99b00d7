// The options of `agentform test`, shared by its registration (index.ts) and its run module.

export interface TestCommandOptions {
  /** -C/--dir: the project directory, when not given as the argument. */
  dir?: string;
  env?: string;
  allEnvs?: boolean;
  json?: boolean;
  /** Also write the results as JUnit XML to this file. */
  junit?: string;
}
