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

// Strict mode (`strictTools`, engine/strict-tools.ts): what the plan shows as derived from the lock.

/** One `byTool` entry agentform adds (never one the user wrote: theirs is kept as written). */
export interface DerivedToolEntry {
  tool: string;
  decision: string;
  /** Where the tool comes from: `connection github`, `builtin`, `sandbox allow list`. */
  from: string;
}

/** What strict mode derived for one agent, shown in the plan apart from what the user wrote. */
export interface DerivedToolPolicy {
  agent: string;
  /** Always `deny`: a tool not listed in `byTool` (one not in the lock) is refused. */
  default: 'deny';
  /** What the user wrote as `policies.toolCalls.default`, when anything. */
  userDefault?: string;
  /** Sorted by tool name. */
  entries: DerivedToolEntry[];
  /** Connections the agent names that have no lock entry: none of their tools is allowed yet. */
  unlockedConnections: string[];
  /**
   * `plan --check-tools`: tools a connection serves now that the lock does not record, which the
   * derived default denies (decision `deny`). Absent when the surfaces were not read.
   */
  denied?: DerivedToolEntry[];
  /**
   * `plan --check-tools`: tools a connection serves now that its lock entry does not record, but
   * named like a tool derived from elsewhere (`byTool` is by bare name): that entry's decision
   * applies to them too. `from`: the connection that serves it. Absent when there are none.
   */
  collisions?: DerivedToolEntry[];
}
