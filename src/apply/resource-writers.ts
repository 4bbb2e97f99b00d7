// How each kind of change becomes Control API calls. One writer per kind; the executor decides
// when each runs. Writers never print: they report through `context.info`.
import type { ConnectionAuth, ToolDescriptor } from '../model/api.js';
import { MERGED_WRITE_FIELDS, type ConnectionInput, type RequestOf, type RpcCaller } from '../api/operations.js';
import { mergeForWrite, restrictToShape, type NullHandling } from '../engine/merge.js';
import { withoutNulls } from '../model/json.js';
import { rulesFor } from '../engine/rules.js';
import type { ActualResource, DesiredResource, JsonObject, ResourceAddress, ResourceChange } from '../model/resources.js';
import { addressOf, connectionAuthField } from '../model/resources.js';
import { ApiError, UserError } from '../errors.js';
import { appliedUpsert } from './upsert-readback.js';
import { agentDefinitionOf, promotedFromOf, wireBodyOf } from '../model/specs.js';

export interface WriteContext {
  caller: RpcCaller;
  environmentSlug: string;
  /** Remote ids by address: those read before the apply, plus those created during it. */
  ids: Map<ResourceAddress, string>;
  desired: Map<ResourceAddress, DesiredResource>;
  /** The remote objects as the plan read them; each one the executor re-reads before writing it, as re-read. */
  actual: Map<ResourceAddress, ActualResource>;
  waitForImages: boolean;
  imagePollMs: number;
  info: (address: ResourceAddress, message: string) => void;
  /** Where the token of a created API key goes (the config's `tokenFile`), or undefined: nowhere. */
  saveToken: (resource: DesiredResource, token: string) => Promise<string | undefined>;
  /** The tools a connection written by this apply answered with (connections.test right after the write). */
  onConnectionTested?: (name: string, id: string, tools: readonly ToolDescriptor[]) => void;
}

/**
 * Returns a short note for the progress line (e.g. "version 4", "13 tools"). `release`: lets the
 * change's dependents start before the writer is done (work-graph.ts), once what they need exists.
 */
export type Writer = (change: ResourceChange, context: WriteContext, release?: () => void) => Promise<string | undefined>;

function desiredOf(change: ResourceChange, context: WriteContext): DesiredResource {
  const resource = context.desired.get(change.address);
  if (!resource) throw new Error(`no desired resource for ${change.address}`);
  return resource;
}

function idOf(address: ResourceAddress, context: WriteContext): string {
  const id = context.ids.get(address);
  if (!id) throw new UserError(`${address} has no remote id: it was not created`);
  return id;
}

function writeOnly(resource: DesiredResource, field: string): string | undefined {
  const entry = resource.writeOnly[field];
  if (!entry) return undefined;
  if (entry.value === undefined) {
    throw new UserError(`${addressOf(resource.kind, resource.name)}: the write-only value ${field} (${entry.source}) is not set`);
  }
  return entry.value;
}

/** What a create sends: the configured fields; `null` ("left to the server") is left out. */
function spec(resource: DesiredResource): JsonObject {
  return withoutNulls(resource.spec) as JsonObject;
}

/**
 * What a write of an existing resource sends: the remote object as re-read just before the write
 * (executor.ts), with the configured fields merged in (engine/merge.ts), so fields the configuration
 * does not mention keep their current remote value; the fields it manages are as the plan saw them
 * ("changed since plan" refuses otherwise).
 */
function merged(change: ResourceChange, context: WriteContext, nulls: NullHandling): JsonObject {
  const resource = desiredOf(change, context);
  const remote = context.actual.get(change.address);
  return mergeForWrite(resource.spec, remote?.spec, rulesFor(resource.kind), nulls);
}

/** A merged body restricted to the request's known fields; `send` for updates that may patch. */
function mergedBody<R extends keyof typeof MERGED_WRITE_FIELDS>(
  rpc: R,
  change: ResourceChange,
  context: WriteContext,
  nulls: NullHandling = 'send',
): JsonObject {
  return restrictToShape(merged(change, context, nulls), MERGED_WRITE_FIELDS[rpc]);
}

const organization: Writer = async (change, context) => {
  const { name } = spec(desiredOf(change, context));
  await context.caller.call('organizations.update', { name: String(name) });
  return undefined;
};

const environment: Writer = async (change, context) => {
  if (change.action === 'create') {
    const settings = spec(desiredOf(change, context));
    await context.caller.call('environments.create', { slug: change.name, name: String(settings.name ?? change.name), ...settings });
  } else {
    const body = mergedBody('environments.update', change, context) as Omit<RequestOf<'environments.update'>, 'slug'>;
    await context.caller.call('environments.update', { slug: change.name, ...body });
  }
  return undefined;
};

const secret: Writer = async (change, context) => {
  if (change.action === 'delete') {
    await context.caller.call('secrets.delete', { id: idOf(change.address, context) });
    return undefined;
  }
  const resource = desiredOf(change, context);
  const value = writeOnly(resource, 'value') ?? '';
  if (change.action === 'create') {
    const created = await context.caller.call('secrets.create', { name: change.name, value });
    context.ids.set(change.address, created.id);
  } else {
    await context.caller.call('secrets.update', { id: idOf(change.address, context), value });
  }
  return undefined;
};

const provider: Writer = async (change, context) => {
  if (change.action === 'delete') {
    await context.caller.call('providers.delete', { id: idOf(change.address, context) });
    return undefined;
  }
  const resource = desiredOf(change, context);
  const secretValue = writeOnly(resource, 'secret');
  const withSecret = secretValue === undefined ? {} : { secret: secretValue };
  if (change.action === 'create') {
    const body = spec(resource) as { type?: string; baseUrl?: string | null };
    const created = await context.caller.call('providers.create', {
      name: change.name,
      type: String(body.type),
      ...(body.baseUrl !== undefined ? { baseUrl: body.baseUrl } : {}),
      ...withSecret,
    });
    context.ids.set(change.address, created.id);
  } else {
    const body = mergedBody('providers.update', change, context) as { type?: string; baseUrl?: string | null };
    await context.caller.call('providers.update', { id: idOf(change.address, context), ...body, ...withSecret });
  }
  return undefined;
};

const connection: Writer = async (change, context, release) => {
  if (change.action === 'delete') {
    await context.caller.call('connections.delete', { id: idOf(change.address, context) });
    return undefined;
  }
  const resource = desiredOf(change, context);
  const written = wireBodyOf<Omit<ConnectionInput, 'name'> & { auth: ConnectionAuth }>(
    change.action === 'create' ? spec(resource) : mergedBody('connections.update', change, context),
  );
  // The spec holds only auth.type; the other auth fields are write-only and sent with every write.
  const body = { ...written, auth: { ...written.auth, ...writeOnlyAuth(resource) } };
  let id: string;
  if (change.action === 'create') {
    const created = await context.caller.call('connections.create', { name: change.name, ...body });
    id = created.id;
    context.ids.set(change.address, id);
  } else {
    id = idOf(change.address, context);
    await context.caller.call('connections.update', { id, ...body });
  }
  const urlChanged = change.action === 'create' || change.fields.some((field) => field.path === 'url');
  if (!urlChanged || !body.url) return undefined;
  // Sent before the dependents are released, so it goes out first; they need the connection, not
  // its tools list, so they do not wait for the tool server's answer.
  const tested = context.caller.call('connections.test', { id });
  release?.();
  try {
    // Reported for information; the same answer is what the tool-surface lock records for a
    // connection this apply wrote (tool-lock-check.ts), so it is asked once. The tool names agents
    // use are not judged here: a list known only on the run that creates (or re-points) the
    // connection would make the same configuration pass or fail depending on history.
    // `validate --remote` checks them on every run instead.
    const { tools } = await tested;
    context.onConnectionTested?.(change.name, id, Array.isArray(tools) ? tools : []);
    return `${tools.length} tool${tools.length === 1 ? '' : 's'}`;
  } catch (error) {
    // The connection itself was written. A tool server that is down is an operational problem to
    // report, not a reason to fail the apply.
    if (!(error instanceof ApiError) || error.status === 0) throw error;
    return `tool server not reachable (${error.code}: ${error.message})`;
  }
};

/** A connection's write-only auth fields (`auth.<field>`), by field name. */
function writeOnlyAuth(resource: DesiredResource): Record<string, string> {
  const auth: Record<string, string> = {};
  for (const path of Object.keys(resource.writeOnly)) {
    const field = connectionAuthField(path);
    if (field !== undefined) auth[field] = writeOnly(resource, path) as string;
  }
  return auth;
}

const grant: Writer = async (change, context) => {
  if (change.action === 'delete') {
    await context.caller.call('connections.grants.delete', { id: idOf(change.address, context) });
    return undefined;
  }
  const resource = desiredOf(change, context);
  const { connection: connectionName, identity } = resource.spec as { connection: string; identity: { scope: string; id: string } };
  const accessToken = writeOnly(resource, 'accessToken') ?? '';
  const connectionId = idOf(addressOf('connection', connectionName), context);
  const { results } = await context.caller.call('connections.grants.import', {
    connectionId,
    // A create that finds an existing grant (lost response, re-run) must not clobber it; an update
    // exists only to send a rotated token, which must replace the old one.
    mode: change.action === 'create' ? 'skip_existing' : 'overwrite',
    grants: [{ identity: { scope: identity.scope, id: identity.id }, accessToken }],
  });
  const result = results[0];
  if (!result || result.outcome === 'failed' || result.error) {
    throw new UserError(`grant import failed: ${result?.error ?? 'no result returned'}`);
  }
  if (result.grantId) context.ids.set(change.address, result.grantId);
  return result.outcome;
};

async function waitForImage(slug: string, version: number, context: WriteContext, address: ResourceAddress): Promise<string> {
  for (;;) {
    const current = await context.caller.call('agents.get', { slug, version });
    const status = current.image?.status ?? 'ready';
    if (status === 'failed') throw new UserError(`${address}: image of version ${version} failed to bake: ${current.image?.error ?? 'no reason given'}`);
    if (status !== 'baking') return status;
    await new Promise((resolve) => setTimeout(resolve, context.imagePollMs));
  }
}

const agent: Writer = async (change, context) => {
  if (change.action === 'delete') {
    await context.caller.call('agents.delete', { slug: change.name });
    return undefined;
  }
  const resource = desiredOf(change, context);
  // agents.upsert replaces the whole definition: an existing agent's is sent back with the
  // configured fields merged in (fields left to the server are left out). The API's minimal upsert
  // has name, tools, policies and limits: one that is neither configured nor remote (a new agent,
  // or a field left to the server) is sent at its empty value.
  const body = context.actual.has(change.address) ? merged(change, context, 'omit') : spec(resource);
  const definition = agentDefinitionOf({ name: change.name, tools: [], policies: {}, limits: {}, ...body });
  const promotedFrom = promotedFromOf(resource.options?.promotedFrom);
  const planned = context.actual.get(change.address)?.remote.version;
  const version = await context.caller.call(
    'agents.upsert',
    { slug: change.name, definition, ...(promotedFrom ? { promotedFrom } : {}) },
    { beforeRetry: () => appliedUpsert(context.caller, change.name, resource.spec, typeof planned === 'number' ? planned : undefined) },
  );
  context.ids.set(change.address, version.agentId);
  if (context.waitForImages) {
    const status = await waitForImage(change.name, version.version, context, change.address);
    return `version ${version.version}, image ${status}`;
  }
  return `version ${version.version}`;
};

const apiKey: Writer = async (change, context) => {
  if (change.action === 'delete') {
    await context.caller.call('apiKeys.revoke', { id: idOf(change.address, context) });
    return 'revoked';
  }
  const resource = desiredOf(change, context);
  // A replacing key takes over what the configuration does not mention from the key it replaces.
  const body = (change.action === 'replace' ? mergedBody('apiKeys.create', change, context, 'omit') : spec(resource)) as {
    scopes?: string[];
    identityScopes?: string[];
    spend?: JsonObject;
    expiresAt?: string;
  };
  const previousId = change.action === 'replace' ? context.ids.get(change.address) : undefined;
  const request = { key: { name: change.name, scopes: body.scopes ?? [], ...body } as { name: string; scopes: string[] } };
  // The key it replaces stays live until the new one's token is saved: a server that keeps one
  // live key per name (the local control plane) is told which one this is.
  const options = previousId ? { replacesKeyId: previousId } : {};
  let created;
  try {
    created = await context.caller.call('apiKeys.create', request, options);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'already_exists') {
      // Another run (a second checkout applying at once) created it first; its token is with that run.
      throw new UserError(
        `${change.address}: ${error.message}`,
        'another apply probably created this key at the same time, and its token is where that run saved it: run plan again to see the key as it is now',
      );
    }
    // The key was made but the answer with its token was lost: nobody can ever use that key.
    // Revoke it and make another, so a lost answer never leaves a live key without a token.
    const orphan = error instanceof ApiError && error.code === 'token_lost' ? (error.details as { keyId?: unknown } | undefined)?.keyId : undefined;
    if (typeof orphan !== 'string') throw error;
    await context.caller.call('apiKeys.revoke', { id: orphan });
    context.info(change.address, `revoked key ${orphan}: it was created, but the answer carrying its token was lost`);
    created = await context.caller.call('apiKeys.create', request, options);
  }
  context.ids.set(change.address, created.key.id);
  let savedTo: string | undefined;
  try {
    savedTo = await context.saveToken(resource, created.token);
  } catch (error) {
    // The new key's token is nowhere, so the key is of no use: revoke it rather than leave it live.
    const revoked = await context.caller.call('apiKeys.revoke', { id: created.key.id }).then(
      () => `the new key ${created.key.id} was revoked`,
      () => `revoke the new key ${created.key.id} (agentform keys revoke ${created.key.id})`,
    );
    const why = error instanceof Error ? error.message : String(error);
    throw new UserError(`${change.address}: ${why}; ${revoked}`, error instanceof UserError ? error.hint : undefined);
  }
  // There is no apiKeys.update: a changed key is a new key, and the old one is revoked only once
  // the new one exists (and its token is saved), so a failure never leaves the user with neither.
  if (previousId) await context.caller.call('apiKeys.revoke', { id: previousId });
  return savedTo ? `token written to ${savedTo}` : 'token not kept (no tokenFile configured)';
};

export const WRITERS = { organization, environment, secret, provider, connection, grant, agent, apiKey } as const;
