// The options of `agentform diff-envs`, shared by its registration (index.ts) and its run module.

export interface DiffEnvsCommandOptions {
  dir?: string;
  json?: boolean;
  detailedExitcode?: boolean;
}
