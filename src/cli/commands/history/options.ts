// The options of `agentform history`, shared by its registration (index.ts) and its run module.

export interface HistoryCommandOptions {
  env?: string;
  json?: boolean;
  dir: string;
}
