// The options of `agentform export`, shared by its registration (index.ts) and its run module.

export interface ExportCommandOptions {
  env?: string;
  out?: string;
  force?: boolean;
  dir?: string;
}
