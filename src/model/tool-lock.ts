// The tool-surface lock (`agentform.lock.yaml`): what each connection's MCP server offered when the
// lock was last written. Plain data, shared by the lock command (writes it), apply and
// `plan --check-tools` (compare the live surface with it) and the capability computation and policy
// rules (which read each tool's annotations from it).

/** MCP tool annotations with the defaults MCP defines for absent hints already filled in. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** MCP's defaults when a server leaves a hint out: assume the worst (may write, may destroy). */
export const MCP_ANNOTATION_DEFAULTS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

export interface LockedTool {
  name: string;
  annotations: ToolAnnotations;
  /** `sha256:<hex>` of the canonical JSON of `{description, inputSchema}`. */
  digest: string;
}

export interface LockedConnection {
  /** Sorted by name. */
  tools: LockedTool[];
}

export interface ToolSurfaceLock {
  version: 1;
  /** environment name → connection name → its locked surface. Keys sorted when written. */
  environments: Record<string, Record<string, LockedConnection>>;
}
