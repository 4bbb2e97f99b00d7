// The vocabulary of the safety review, shared by the engine (which computes it), the review edge
// and the renderers: what an agent can do (capabilities), how that changes, and policy findings.
import type { SourceLocation } from '../errors.js';
import type { ResourceAddress } from './resources.js';

/** How a call to the tool is decided. */
export type ToolDecision = 'allowed' | 'hook' | 'denied';
/** What the tool may do, from its annotations; `unknown` when nothing says (rules treat it as destructive). */
export type ToolEffect = 'read-only' | 'write' | 'destructive' | 'unknown';
export type ToolSource = 'builtin' | 'sandbox' | 'connection';

export interface Capability {
  /** `builtin.current_time`, `sandbox.exec`, `sandbox.*`, `github.delete_repo`, `github.*` (surface unknown). */
  tool: string;
  source: ToolSource;
  decision: ToolDecision;
  effect: ToolEffect;
  /** The subagent chain it is reached through (`['researcher']`); empty for the agent's own tools. */
  via: string[];
  /** Why the entry is approximate, e.g. "no lock entry for connection github: its tools are unknown". */
  note?: string;
}

export interface AgentCapabilities {
  agent: string;
  /** Sorted by via chain, then tool name. */
  capabilities: Capability[];
  /** Connections the agent (or a subagent) names whose tools the lock does not list. */
  unknownConnections: string[];
  /** Subagents named but not found (not declared, or not on the server). */
  missingSubagents: string[];
}

export interface CapabilityChange {
  /** Newly reachable, no longer reachable, or its decision or effect changed. */
  change: 'added' | 'removed' | 'changed';
  tool: string;
  via: string[];
  before?: { decision: ToolDecision; effect: ToolEffect };
  after?: { decision: ToolDecision; effect: ToolEffect };
  note?: string;
}

export interface AgentCapabilityDiff {
  agent: string;
  /** `created`: the agent is new; `deleted`: it goes away; `changed`: it exists on both sides. */
  status: 'created' | 'deleted' | 'changed';
  changes: CapabilityChange[];
  /** The capabilities after the change (before, for a deleted agent): for the review table. */
  capabilities: Capability[];
  unknownConnections: string[];
}

/**
 * Who can reach one connection's tools through one agent (or its subagent chain): a grant subject
 * (`user:alice`) through its grant, or `anonymous` through the connection's own credential when no
 * agent on the chain requires an identity. Never a token: grants' tokens are write-only.
 */
export interface IdentityReach {
  /** `SCOPE:ID` of a grant, or `anonymous`. */
  identity: string;
  connection: string;
  /** The subagent chain, as in Capability.via. */
  via: string[];
  /** The grant's address name (`github:user:alice`); absent for `anonymous`. */
  grant?: string;
  /** The connection's tools, as in the capability list (`github.search`, or `github.*` when unknown). */
  tools: string[];
  /** E.g. the grant's scope is not in the agent's identity.scopesAllowed. */
  note?: string;
}

export type IdentityChange =
  | {
      /** An identity newly able to reach a connection's tools, or no longer. */
      change: 'added' | 'removed';
      reach: IdentityReach;
    }
  | {
      /** The same identity still reaches the same connection, but its grant or note (admission) changes. */
      change: 'changed';
      before: IdentityReach;
      /** After the change. */
      reach: IdentityReach;
    };

export interface AgentIdentityDiff {
  agent: string;
  changes: IdentityChange[];
  /** Every identity that reaches a connection after the change (before, for a deleted agent). */
  reach: IdentityReach[];
}

export type PathSegment = string | number;

export interface Finding {
  rule: string;
  severity: 'error' | 'warning';
  address: ResourceAddress;
  /** Path inside the resource's spec (for locating it in the file). */
  path: PathSegment[];
  message: string;
  /** A custom rule from agentform.yaml, not a built-in one. */
  custom?: boolean;
  /** Suppressed on the resource: shown, never counted. */
  suppressed?: { reason: string };
  /** Where it is written, relative to the working directory (added at the edge). */
  location?: SourceLocation;
}

export interface SafetyReview {
  environment: string;
  environmentKind?: string;
  findings: Finding[];
  /** Agents whose capabilities change (plan and promote: they know what the server runs). */
  capabilityChanges?: AgentCapabilityDiff[];
  /** Agents whose identity reach changes (grants, identity.required), with capabilityChanges. */
  identityChanges?: AgentIdentityDiff[];
  /** What the review could not see, e.g. a connection with no lock entry. */
  notes: string[];
  counts: { errors: number; warnings: number; suppressed: number };
}
