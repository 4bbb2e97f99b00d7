// The options of `agentform mcp`, shared by its registration (index.ts) and its run module.

export interface McpCommandOptions {
  /** -C/--dir: the project directory, when not given as the argument. */
  dir?: string;
  allowApply?: boolean;
}
