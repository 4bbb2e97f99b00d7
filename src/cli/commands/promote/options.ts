// The options of `agentform promote`, shared by its registration (index.ts) and its run module.

export interface PromoteCommandOptions {
  from: string;
  to: string;
  sourceVersion?: string;
  autoApprove?: boolean;
  withSubagents?: boolean;
  dir: string;
}
