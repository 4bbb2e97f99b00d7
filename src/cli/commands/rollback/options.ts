// The options of `agentform rollback`, shared by its registration (index.ts) and its run module.

export interface RollbackCommandOptions {
  to: string;
  env?: string;
  autoApprove?: boolean;
  /** --break-glass: the reason to write inside a change window. */
  breakGlass?: string;
  dir: string;
}
