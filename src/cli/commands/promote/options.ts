// The options of `agentform promote`, shared by its registration (index.ts) and its run module.

export interface PromoteCommandOptions {
  from: string;
  to: string;
  sourceVersion?: string;
  autoApprove?: boolean;
  /** --break-glass: the reason to write inside a change window. */
  breakGlass?: string;
  withSubagents?: boolean;
  dir: string;
}
