// Everything apply will need, checked before its first write: an apply that cannot be finished
// must not start, or it leaves some resources changed and others not. Pure: the CLI gathers the
// facts that need I/O (token file paths, the credential's scopes) and prints the problems.
import { TOKEN_FILE_STATE, credentialKeyProblems } from '../engine/api-key-files.js';
import type { ActualState, DesiredResource, DesiredState, JsonObject, Plan, ResourceAddress, ResourceChange } from '../model/resources.js';
import { addressOf } from '../model/resources.js';

/** The default largest request body apply sends (the local control plane accepts up to 1 MiB). */
export const DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024;

export interface PreflightFacts {
  maxRequestBytes: number;
  /** The scopes of the API key in use, when its own record was readable; undefined: unknown. */
  credentialScopes?: readonly string[];
  /** By declared key name: why its token file cannot be written, for those that cannot. */
  tokenFileProblems: ReadonlyMap<string, string>;
  /** The address of the API key in use, when its own record was readable. */
  credentialKey?: ResourceAddress;
}

const SENDS = new Set(['create', 'update', 'adopt', 'replace']);

/** Whether apply sends the change: an adoption of what already matches sends nothing (executor.ts). */
function sends(change: ResourceChange): boolean {
  return SENDS.has(change.action) && !(change.action === 'adopt' && change.fields.length === 0);
}

/** Every reason the plan cannot be applied to the end, in plan order; empty: go ahead. */
export function preflight(plan: Plan, desired: DesiredState, actual: ActualState, facts: PreflightFacts): string[] {
  const problems: string[] = [];
  const writes = plan.changes.filter((change) => sends(change) || change.action === 'delete');
  if (writes.length === 0) return problems;
  if (facts.credentialScopes && !facts.credentialScopes.includes('control')) {
    const scopes = facts.credentialScopes.length > 0 ? facts.credentialScopes.join(', ') : 'none';
    problems.push(`the API key in use has the scopes ${scopes}: the ${writes.length} change(s) need the control scope`);
  }
  if (facts.credentialKey) {
    problems.push(...credentialKeyProblems(plan, facts.credentialKey).map((problem) => `${problem}; apply with another control key`));
  }
  const desiredByAddress = new Map(desired.resources.map((resource) => [addressOf(resource.kind, resource.name), resource]));
  const remoteSpec = new Map(actual.resources.map((resource) => [addressOf(resource.kind, resource.name), resource.spec]));
  for (const change of writes) {
    if (!sends(change)) continue;
    const resource = desiredByAddress.get(change.address);
    if (!resource) continue;
    for (const [field, entry] of Object.entries(resource.writeOnly)) {
      if (entry.value === undefined) problems.push(`${change.address}: the write-only ${field} is not available: ${describeSource(entry.source)}`);
    }
    const total = requestBytes(change, resource, remoteSpec.get(change.address));
    if (total > facts.maxRequestBytes) {
      const largest = largestField(requestBody(change, resource, remoteSpec.get(change.address)));
      problems.push(
        `${change.address}: the request would be about ${formatBytes(total)}, over the limit of ${formatBytes(facts.maxRequestBytes)}` +
          (largest ? ` (largest field: ${largest.field}, ${formatBytes(largest.bytes)})` : '') +
          '; shorten it, or raise --max-request-bytes / maxRequestBytes if the server accepts more',
      );
    }
    if (resource.kind === 'apiKey') problems.push(...tokenFileProblems(change, resource, facts));
  }
  return problems;
}

function tokenFileProblems(change: ResourceChange, resource: DesiredResource, facts: PreflightFacts): string[] {
  const file = resource.options?.tokenFile;
  if (typeof file !== 'string') return [];
  const out: string[] = [];
  if (resource.options?.[TOKEN_FILE_STATE] === 'foreign') {
    out.push(
      `${change.address}: tokenFile ${file} holds another key's token (or something that is not a token of this environment): refusing to overwrite it; point tokenFile elsewhere, or remove the file if nothing needs it`,
    );
  }
  const why = facts.tokenFileProblems.get(resource.name);
  if (why) out.push(`${change.address}: cannot write tokenFile ${file}: ${why}`);
  return out;
}

function describeSource(source: string): string {
  const env = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-.*)?\}$/.exec(source);
  if (env) return `environment variable ${env[1]} is not set`;
  const file = /^\$\{file:(.*)\}$/.exec(source);
  if (file) return `file ${file[1]} not found (relative to the YAML file that names it)`;
  return `${source} is not set`;
}

/**
 * The size of the body the writer sends, estimated from above: the configured fields with their
 * write-only values, and for agents the remote definition too (an upsert may carry fields the
 * configuration leaves to the server), plus room for the envelope.
 */
function requestBytes(change: ResourceChange, resource: DesiredResource, remote: JsonObject | undefined): number {
  return Buffer.byteLength(JSON.stringify(requestBody(change, resource, remote))) + 512;
}

function requestBody(change: ResourceChange, resource: DesiredResource, remote: JsonObject | undefined): JsonObject {
  const writeOnly: JsonObject = {};
  for (const field in resource.writeOnly) writeOnly[field] = resource.writeOnly[field]?.value ?? '';
  return { ...(resource.kind === 'agent' ? (remote ?? {}) : {}), ...resource.spec, ...writeOnly, name: change.name };
}

/**
 * The body's largest field, named in the refusal. Worked out only for a body over the limit: an
 * apply of thousands of changes measured every field of every body, most of preflight's time.
 */
function largestField(body: JsonObject): { field: string; bytes: number } | undefined {
  let largest: { field: string; bytes: number } | undefined;
  for (const [field, value] of Object.entries(body)) {
    const bytes = Buffer.byteLength(JSON.stringify(value ?? null));
    if (!largest || bytes > largest.bytes) largest = { field, bytes };
  }
  return largest;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
