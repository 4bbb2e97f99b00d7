// The options of `agentform apply`, shared by its registration (index.ts) and its run module.

export interface ApplyCommandOptions {
  /** -C/--dir: the project directory, when not given as the argument. */
  dir?: string;
  env?: string;
  autoApprove?: boolean;
  parallelism: string;
  wait?: boolean;
  json?: boolean;
  prune?: boolean;
  allowMassDelete?: boolean;
  target?: string[];
  exclude?: string[];
  base?: string;
  maxRequestBytes?: string;
  updateLock?: boolean;
  /** --break-glass: the reason to write inside a change window. */
  breakGlass?: string;
}
