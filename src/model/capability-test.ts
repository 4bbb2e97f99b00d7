// Capability tests (docs/capability-tests.md): assertions on what agents can call, as written in
// *.test.yaml files, and their results per environment.
import type { SourceLocation } from '../errors.js';

/** One assertion of a test file, checked (schema and semantics) by the config layer. */
export interface CapabilityAssertion {
  /** As written, or made from the assertion. */
  name: string;
  /** An agent name or a glob over agent names. */
  agent: string;
  /** `can`: the call is possible; `cannot`: the opposite of the same `can`. */
  expect: 'can' | 'cannot';
  /** CONNECTION.TOOL, builtin.NAME or sandbox.NAME. */
  tool: string;
  /** true: the call waits for a decision; false: it runs without one; undefined: either. */
  withDecision?: boolean;
  /**
   * The caller the assertion is about: `SCOPE:ID` (the identity of a grant) or `anonymous` (no
   * identity); undefined: any caller (identity not considered).
   */
  as?: string;
  /** Where it is checked; undefined: every environment. */
  environments?: string[];
  /** The assertion in its test file. */
  location: SourceLocation;
}

/** A definition the result rests on, with where it is written when known. */
export interface DefinitionStep {
  /** E.g. `agent support`, `policies.toolCalls.byTool.delete_customer: allow`, `lock: crm has delete_customer`. */
  what: string;
  location?: SourceLocation;
}

/**
 * pass / fail: the assertion holds or not; error: it cannot be decided (a connection with no lock
 * entry, an agent glob that matches no declared agent).
 */
export type CapabilityTestStatus = 'pass' | 'fail' | 'error';

/** One assertion in one environment. */
export interface CapabilityTestResult {
  assertion: CapabilityAssertion;
  environment: string;
  status: CapabilityTestStatus;
  /** Why it passed, failed or could not be decided, in a sentence. */
  message: string;
  /** The agents the assertion was checked for (its glob's matches in this environment). */
  agents: string[];
  /** The chain of definitions that grants (or denies) the capability. */
  chain: DefinitionStep[];
}

/** Every result of a run; `environments` in the order they were checked. */
export interface CapabilityTestReport {
  environments: string[];
  results: CapabilityTestResult[];
  /** Assertions not checked in an environment (it names others, or no agent matches there). */
  skipped: number;
}

export function countResults(report: CapabilityTestReport): Record<CapabilityTestStatus, number> {
  const counts: Record<CapabilityTestStatus, number> = { pass: 0, fail: 0, error: 0 };
  for (const result of report.results) counts[result.status]++;
  return counts;
}
