// API keys and their token files. A key's token is returned once, by apiKeys.create, and lives only
// in the key's `tokenFile`; the server knows only the token's leading part (the key's `prefix`).
// So the token file is part of a key's state: a live key whose token file is missing (a lost create
// answer, a fresh CI clone) is as good as no key, and of two live keys of one name (two applies at
// once) the one to keep is the one whose token the file holds.
//
// Pure: the CLI reads the files and passes what they hold; nothing here returns or keeps a token.
import type { ActualResource, ActualState, DesiredResource, DesiredState, JsonObject, Plan, ResourceAddress } from '../model/resources.js';

/**
 * What a declared key's token file holds, relative to the live keys of the environment:
 * - `missing`: there is no file (the key's token is nowhere);
 * - `owned`: the token of the live key of this name;
 * - `stale`: a token of this environment that belongs to no live key (revoked): safe to replace;
 * - `foreign`: a token of another live key, the run's own credential, a token of another
 *   environment, or not a token at all: never overwritten.
 */
export type TokenFileState = 'missing' | 'owned' | 'stale' | 'foreign';

export const TOKEN_FILE_STATE = 'tokenFileState';

/** What a token file holds: `token` is its first line, trimmed (absent when the file is empty). */
export interface TokenFileContent {
  exists: boolean;
  token?: string;
}

export interface KeyFileFacts {
  /** By declared key name, for keys with a `tokenFile`. */
  files: ReadonlyMap<string, TokenFileContent>;
  /** The token this run authenticates with (a token file holding it is never overwritten). */
  ownToken?: string;
}

/** The name a live key is listed under (`ci`), also for the duplicates normalisation renamed (`ci#key_7`). */
export function baseKeyName(resource: Pick<ActualResource, 'name' | 'id'>): string {
  const suffix = `#${resource.id}`;
  return resource.name.endsWith(suffix) ? resource.name.slice(0, -suffix.length) : resource.name;
}

function prefixOf(resource: ActualResource): string | undefined {
  const prefix = resource.remote.prefix;
  return typeof prefix === 'string' && prefix.length > 0 ? prefix : undefined;
}

/**
 * Annotates each declared key that has a `tokenFile` with its TokenFileState (in
 * `options.tokenFileState`, which the plan reads), and, when several live keys share a declared
 * name, gives the name to the one whose token the file holds (normalisation gave it to the newest).
 */
export function reconcileKeyTokenFiles(desired: DesiredState, actual: ActualState, facts: KeyFileFacts): { desired: DesiredState; actual: ActualState } {
  let resources = actual.resources;
  const liveKeys = () => resources.filter((resource) => resource.kind === 'apiKey');
  const tokenShape = new RegExp(`^svc_${escapeRegExp(desired.target.slug)}_[^_\\s]+$`);

  const annotated = desired.resources.map((resource): DesiredResource => {
    if (resource.kind !== 'apiKey' || typeof resource.options?.tokenFile !== 'string') return resource;
    const file = facts.files.get(resource.name);
    let state: TokenFileState;
    if (!file?.exists) {
      state = 'missing';
    } else {
      const token = file.token ?? '';
      const owner =
        token === ''
          ? undefined
          : liveKeys().find((key) => {
              const prefix = prefixOf(key);
              return prefix !== undefined && token.startsWith(prefix);
            });
      if (owner && baseKeyName(owner) === resource.name) {
        state = 'owned';
        resources = giveName(resources, owner, resource.name);
      } else if (owner || (facts.ownToken !== undefined && token === facts.ownToken) || !tokenShape.test(token)) {
        state = 'foreign';
      } else {
        state = 'stale';
      }
    }
    return { ...resource, options: { ...(resource.options as JsonObject), [TOKEN_FILE_STATE]: state } };
  });
  return { desired: { ...desired, resources: annotated }, actual: resources === actual.resources ? actual : { ...actual, resources } };
}

/** `owner` takes `name`; the key that had it becomes `name#<id>`, like any other duplicate. */
function giveName(resources: readonly ActualResource[], owner: ActualResource, name: string): ActualResource[] {
  if (owner.name === name) return [...resources];
  return resources.map((resource) => {
    if (resource === owner) return { ...resource, name };
    if (resource.kind === 'apiKey' && resource.name === name) return { ...resource, name: `${name}#${resource.id}` };
    return resource;
  });
}

/** The reason a declared key with a remote counterpart must be replaced because of its token file, if any. */
export function tokenFileReplaceReason(resource: DesiredResource): string | undefined {
  switch (resource.options?.[TOKEN_FILE_STATE]) {
    case 'missing':
      return `token file missing (${String(resource.options.tokenFile)}): the key's token is nowhere`;
    case 'stale':
      return `token file ${String(resource.options.tokenFile)} holds the token of a key that no longer exists`;
    case 'foreign':
      return `token file ${String(resource.options.tokenFile)} holds another key's token (or no token)`;
    default:
      return undefined;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The changes of a plan that would revoke the key a run authenticates with (a delete, or a
 * replace, which revokes the old key): the run would lose its credential halfway through.
 */
export function credentialKeyProblems(plan: Plan, credentialKey: ResourceAddress): string[] {
  return plan.changes
    .filter((change) => change.address === credentialKey && (change.action === 'delete' || change.action === 'replace'))
    .map(
      (change) =>
        `${change.address} is the key this run authenticates with: ${change.action === 'delete' ? 'deleting' : 'replacing'} it would revoke the run's own credential halfway through`,
    );
}
