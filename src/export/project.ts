// ActualState of one environment → the files of a complete agentform project that declares it.
// Pure: no I/O, no clock. The caller reads the state and writes the files.
import type { ActualResource, ActualState, JsonObject, JsonValue, ResourceKind } from '../model/resources.js';
import { EnvVarNames, envVarPart, type EnvVarNeed } from './env-names.js';
import { exportableSpec, fieldList, type SchemaRef } from './prune.js';
import { Reference, yamlFile, type ExportValue } from './yaml-text.js';

export interface ExportTarget {
  /** agentform's name for the environment (a key under `environments:`). */
  name: string;
  /** The environment slug on the server. */
  slug: string;
  /** The URL as given: a base URL or `local`. */
  url: string;
}

export interface ExportInput {
  target: ExportTarget;
  actual: ActualState;
  /** Ids of API keys to leave out (the key the export authenticates with). */
  skipApiKeyIds?: ReadonlySet<string>;
  /** Environment id → name, to say where a promoted agent version came from. */
  environmentNames?: ReadonlyMap<string, string>;
  /**
   * The configuration schemas of the kinds exported (the caller reads schemas/): fields they do
   * not know are left out with a note, so the exported project validates. A kind without one is
   * exported as the server reports it.
   */
  schemas: ExportSchemas;
}

export type ExportSchemas = Partial<Record<'agent' | 'provider' | 'connection' | 'apiKey' | 'environment', SchemaRef>>;

export interface ExportedFile {
  /** Relative to the project directory, `/`-separated. */
  path: string;
  content: string;
}

export interface ExportResult {
  files: ExportedFile[];
  /** Environment variables the exported project reads (tokens, write-only values). */
  envVars: EnvVarNeed[];
  /** Resources exported, per kind. */
  counts: Partial<Record<ResourceKind, number>>;
  /** What was left out and why. */
  notes: string[];
}

const byName = (a: ActualResource, b: ActualResource) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** `name` is a valid resource name for every kind. */
const RESOURCE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const ENVIRONMENT_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

/** A valid environment name for a slug (the slug itself when it is one). */
export function environmentNameFor(slug: string): string {
  if (ENVIRONMENT_NAME.test(slug)) return slug;
  const cleaned = slug
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return cleaned === '' ? 'exported' : cleaned;
}

export function exportEnvironment(input: ExportInput): ExportResult {
  const { target, actual } = input;
  const names = new EnvVarNames();
  const notes: string[] = [];
  /** The spec as the server reports it, minus nulls and fields the schema does not know (noted). */
  const exported = (resource: ActualResource, kind: keyof ExportSchemas): JsonObject => {
    const { spec, unknown } = exportableSpec(resource.spec, input.schemas[kind]);
    if (unknown.length > 0) {
      notes.push(
        `${resource.kind}/${resource.name}: left out ${unknown.length === 1 ? 'a field' : `${unknown.length} fields`} the configuration does not know (${fieldList(unknown)}); the exported project does not manage ${unknown.length === 1 ? 'it' : 'them'}, so apply keeps ${unknown.length === 1 ? 'its value' : 'their values'}`,
      );
    }
    return spec;
  };
  const counts: Partial<Record<ResourceKind, number>> = {};
  const files: ExportedFile[] = [];
  const addFile = (path: string, schema: string, documents: Parameters<typeof yamlFile>[2]) => files.push({ path, content: yamlFile(path, schema, documents) });
  const ofKind = (kind: ResourceKind) => {
    const resources = actual.resources.filter((resource) => resource.kind === kind).sort(byName);
    const usable = resources.filter((resource) => {
      if (RESOURCE_NAME.test(resource.name) || kind === 'grant' || kind === 'organization' || kind === 'environment') return true;
      notes.push(`${kind}/${resource.name} was left out: its name cannot be written in a configuration`);
      return false;
    });
    return usable;
  };
  const count = (kind: ResourceKind, n: number) => {
    if (n > 0) counts[kind] = n;
  };
  for (const missing of actual.missingOperations) notes.push(`the server does not offer ${missing.rpc}: ${missing.consequence}, so the export lacks them`);

  const environment = ofKind('environment')[0];
  files.push({ path: 'agentform.yaml', content: rootFile(target, ofKind('organization')[0], environment ? exported(environment, 'environment') : {}, names) });

  const providers = ofKind('provider');
  count('provider', providers.length);
  if (providers.length > 0) {
    addFile(
      'providers.yaml',
      'provider',
      providers.map((provider) => ({ value: providerDocument(provider, exported(provider, 'provider'), names) })),
    );
  }

  const secrets = ofKind('secret');
  count('secret', secrets.length);
  if (secrets.length > 0) {
    const documents = secrets.map((secret) => ({
      value: { kind: 'Secret', name: secret.name, spec: { value: envRef(names, [`SECRET_${envVarPart(secret.name)}`], `the value of secret ${secret.name}`) } },
    }));
    addFile('secrets.yaml', 'secret', documents);
  }

  const connections = ofKind('connection');
  const grants = ofKind('grant');
  count('connection', connections.length);
  const connectionNames = new Set(connections.map((connection) => connection.name));
  const exportedGrants = grants.filter((grant) => {
    if (connectionNames.has(String(grant.spec.connection))) return true;
    notes.push(`grant/${grant.name} was left out: its connection is not in the environment`);
    return false;
  });
  count('grant', exportedGrants.length);
  if (connections.length > 0) {
    const documents = connections.map((connection) => ({
      value: connectionDocument(
        connection,
        exported(connection, 'connection'),
        exportedGrants.filter((grant) => grant.spec.connection === connection.name),
        names,
      ),
    }));
    addFile('connections.yaml', 'connection', documents);
  }

  const agents = ofKind('agent');
  count('agent', agents.length);
  for (const agent of agents) {
    const { document, prompt, comments } = agentDocument(agent, exported(agent, 'agent'), input.environmentNames);
    addFile(`agents/${agent.name}.yaml`, 'agent', [{ comments, value: document }]);
    if (prompt !== undefined) files.push({ path: `prompts/${agent.name}.md`, content: prompt });
  }

  const keys = ofKind('apiKey').filter((key) => {
    if (input.skipApiKeyIds?.has(key.id)) {
      notes.push(`apiKey/${key.name} was left out: it is the key this export authenticated with`);
      return false;
    }
    return true;
  });
  count('apiKey', keys.length);
  if (keys.length > 0) {
    const documents = keys.map((key) => ({ value: { kind: 'ApiKey', name: key.name, spec: exported(key, 'apiKey') } }));
    addFile('apikeys.yaml', 'apikey', documents);
  }

  return { files, envVars: names.list(), counts, notes };
}

function envRef(names: EnvVarNames, candidates: string[], purpose: string): Reference {
  return new Reference(`\${env:${names.claim(candidates, purpose)}}`);
}

function rootFile(target: ExportTarget, organization: ActualResource | undefined, settings: JsonObject, names: EnvVarNames): string {
  const entry: { [key: string]: ExportValue } = { url: target.url };
  if (target.slug !== target.name) entry.slug = target.slug;
  // The local control plane hands out its own keys; every other server needs one.
  if (target.url !== 'local') {
    entry.token = envRef(names, [`AGENTFORM_TOKEN_${envVarPart(target.name)}`], `the API key of environment ${target.name}`);
  }
  if (Object.keys(settings).length > 0) entry.settings = settings;
  const root: { [key: string]: ExportValue } = { version: 1 };
  if (organization && typeof organization.spec.name === 'string') root.organization = { name: organization.spec.name };
  root.defaultEnvironment = target.name;
  root.environments = { [target.name]: entry };
  return yamlFile('agentform.yaml', 'agentform', [{ comments: [`The live state of environment ${target.slug}.`], value: root }]);
}

function providerDocument(provider: ActualResource, exported: JsonObject, names: EnvVarNames): ExportValue {
  const spec: { [key: string]: ExportValue } = { ...exported };
  if (provider.remote.hasSecret === true) {
    spec.secret = envRef(names, [`PROVIDER_${envVarPart(provider.name)}_SECRET`], `the credential of provider ${provider.name}`);
  }
  return { kind: 'Provider', name: provider.name, spec };
}

function connectionDocument(connection: ActualResource, exported: JsonObject, grants: ActualResource[], names: EnvVarNames): ExportValue {
  const spec: { [key: string]: ExportValue } = { ...exported };
  if (grants.length > 0) {
    spec.grants = grants.map((grant) => {
      const identity = grant.spec.identity as { scope: string; id: string };
      const base = `GRANT_${envVarPart(connection.name)}`;
      return {
        identity: { scope: identity.scope, id: identity.id },
        accessToken: envRef(
          names,
          [`${base}_${envVarPart(identity.id)}`, `${base}_${envVarPart(identity.scope)}_${envVarPart(identity.id)}`],
          `the access token of ${identity.scope} ${identity.id} on connection ${connection.name}`,
        ),
      };
    });
  }
  return { kind: 'Connection', name: connection.name, spec };
}

function agentDocument(
  agent: ActualResource,
  exported: JsonObject,
  environmentNames: ReadonlyMap<string, string> | undefined,
): { document: ExportValue; prompt?: string; comments: string[] } {
  const spec: { [key: string]: ExportValue } = { ...exported };
  // The configuration defaults an agent's display name to its resource name.
  if (spec.name === agent.name) delete spec.name;
  let prompt: string | undefined;
  if (typeof agent.spec.system === 'string') {
    prompt = agent.spec.system;
    spec.system = new Reference(`\${file:../prompts/${agent.name}.md}`);
  }
  const comments: string[] = [];
  const version = agent.remote.version;
  if (typeof version === 'number') comments.push(`Version ${version} of agent ${agent.name}.`);
  const promotedFrom = agent.remote.promotedFrom as JsonValue | undefined;
  if (promotedFrom && typeof promotedFrom === 'object' && !Array.isArray(promotedFrom)) {
    const from = String(promotedFrom.environmentId);
    comments.push(`Promoted from environment ${environmentNames?.get(from) ?? from}, version ${String(promotedFrom.version)}.`);
  }
  return { document: { kind: 'Agent', name: agent.name, spec: orderedAgentSpec(spec) }, ...(prompt !== undefined ? { prompt } : {}), comments };
}

/** The order the configuration reference uses, so files read naturally; unknown keys last. */
const AGENT_KEY_ORDER = [
  'name',
  'description',
  'model',
  'system',
  'tools',
  'toolLoading',
  'policies',
  'limits',
  'compaction',
  'overrides',
  'subagents',
  'subagentPolicy',
  'sandbox',
  'identity',
];

function orderedAgentSpec(spec: { [key: string]: ExportValue }): { [key: string]: ExportValue } {
  const out: { [key: string]: ExportValue } = {};
  for (const key of AGENT_KEY_ORDER) if (spec[key] !== undefined) out[key] = spec[key] as ExportValue;
  for (const [key, value] of Object.entries(spec)) if (!(key in out)) out[key] = value;
  return out;
}
