// The models a provider offers (what `providers.models` returns). Well-known provider types
// get a built-in catalog; a provider with a baseUrl is asked directly through the
// OpenAI-compatible `GET {baseUrl}/models`, and what we know about each model's limits is
// merged in.
import { request } from 'undici';
import type { Model } from '../model/api.js';

export interface ProviderForCatalog {
  type: string;
  baseUrl?: string | null;
  /** Write-only provider secret; sent as a bearer token, never logged or echoed. */
  secret?: string;
}

export interface ListModelsOptions {
  timeoutMs?: number;
}

interface KnownModel {
  provider: string;
  id: string;
  contextWindow: number;
  maxOutputTokens?: number;
}

/** The one data table: current-ish models of well-known vendors, with published limits. */
const KNOWN_MODELS: readonly KnownModel[] = [
  { provider: 'openai', id: 'gpt-5', contextWindow: 400_000, maxOutputTokens: 128_000 },
  { provider: 'openai', id: 'gpt-5-mini', contextWindow: 400_000, maxOutputTokens: 128_000 },
  { provider: 'openai', id: 'gpt-5-nano', contextWindow: 400_000, maxOutputTokens: 128_000 },
  { provider: 'openai', id: 'gpt-4.1', contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  { provider: 'openai', id: 'gpt-4.1-mini', contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  { provider: 'openai', id: 'gpt-4.1-nano', contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  { provider: 'openai', id: 'gpt-4o', contextWindow: 128_000, maxOutputTokens: 16_384 },
  { provider: 'openai', id: 'gpt-4o-mini', contextWindow: 128_000, maxOutputTokens: 16_384 },
  { provider: 'openai', id: 'o3', contextWindow: 200_000, maxOutputTokens: 100_000 },
  { provider: 'openai', id: 'o4-mini', contextWindow: 200_000, maxOutputTokens: 100_000 },
  { provider: 'anthropic', id: 'claude-opus-4-1-20250805', contextWindow: 200_000, maxOutputTokens: 32_000 },
  { provider: 'anthropic', id: 'claude-opus-4-20250514', contextWindow: 200_000, maxOutputTokens: 32_000 },
  { provider: 'anthropic', id: 'claude-sonnet-4-5-20250929', contextWindow: 200_000, maxOutputTokens: 64_000 },
  { provider: 'anthropic', id: 'claude-sonnet-4-20250514', contextWindow: 200_000, maxOutputTokens: 64_000 },
  { provider: 'anthropic', id: 'claude-haiku-4-5-20251001', contextWindow: 200_000, maxOutputTokens: 64_000 },
  { provider: 'anthropic', id: 'claude-3-7-sonnet-20250219', contextWindow: 200_000, maxOutputTokens: 64_000 },
  { provider: 'anthropic', id: 'claude-3-5-haiku-20241022', contextWindow: 200_000, maxOutputTokens: 8_192 },
  { provider: 'google', id: 'gemini-2.5-pro', contextWindow: 1_048_576, maxOutputTokens: 65_536 },
  { provider: 'google', id: 'gemini-2.5-flash', contextWindow: 1_048_576, maxOutputTokens: 65_536 },
  { provider: 'google', id: 'gemini-2.5-flash-lite', contextWindow: 1_048_576, maxOutputTokens: 65_536 },
  { provider: 'google', id: 'gemini-2.0-flash', contextWindow: 1_048_576, maxOutputTokens: 8_192 },
  { provider: 'mistral', id: 'mistral-large-latest', contextWindow: 131_072 },
  { provider: 'mistral', id: 'mistral-medium-latest', contextWindow: 131_072 },
  { provider: 'mistral', id: 'mistral-small-latest', contextWindow: 131_072 },
  { provider: 'mistral', id: 'codestral-latest', contextWindow: 262_144 },
  { provider: 'mistral', id: 'ministral-8b-latest', contextWindow: 131_072 },
];

/** `ownedBy` as the vendors' own model listings spell it. */
const OWNER_BY_PROVIDER: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'google',
  mistral: 'mistralai',
};

/** Other spellings of the same vendor kinds (the API's exact kind names are not documented). */
const PROVIDER_ALIASES: Readonly<Record<string, string>> = {
  gemini: 'google',
  'google-ai': 'google',
  googleai: 'google',
  mistralai: 'mistral',
};

const DEFAULT_TIMEOUT_MS = 10_000;

function canonicalProviderType(type: string): string {
  const lower = type.trim().toLowerCase();
  return PROVIDER_ALIASES[lower] ?? lower;
}

function toModel(known: KnownModel): Model {
  const model: Model = { id: known.id, ownedBy: OWNER_BY_PROVIDER[known.provider], contextWindow: known.contextWindow };
  if (known.maxOutputTokens !== undefined) model.maxOutputTokens = known.maxOutputTokens;
  return model;
}

/** `gpt-4o-2024-08-06` → `gpt-4o`, `claude-sonnet-4-20250514` → `claude-sonnet-4`. */
function withoutSnapshotDate(id: string): string {
  return id.replace(/-(\d{4}-\d{2}-\d{2}|\d{8})$/, '');
}

const KNOWN_BY_ID = new Map(KNOWN_MODELS.map((m) => [m.id, m]));
const KNOWN_BY_FAMILY = new Map(KNOWN_MODELS.map((m) => [withoutSnapshotDate(m.id), m]));

/**
 * Limits for an id a server reported: the id as is, else without a routing prefix
 * (`openai/gpt-4o`), else by family, ignoring a dated snapshot suffix on either side.
 */
function knownLimits(id: string): KnownModel | undefined {
  const unprefixed = id.slice(id.lastIndexOf('/') + 1);
  return KNOWN_BY_ID.get(id) ?? KNOWN_BY_ID.get(unprefixed) ?? KNOWN_BY_FAMILY.get(withoutSnapshotDate(unprefixed));
}

/** The built-in catalog for a provider type; [] for a type we know nothing about. */
export function builtInModels(type: string): Model[] {
  const provider = canonicalProviderType(type);
  return KNOWN_MODELS.filter((m) => m.provider === provider).map(toModel);
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

function modelsEndpoint(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(`${baseUrl.replace(/\/+$/, '')}/models`);
  } catch {
    throw new Error(`provider baseUrl ${JSON.stringify(baseUrl)} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`provider baseUrl must be http or https, got ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new Error('provider baseUrl must not contain credentials; set the provider secret instead');
  }
  return url;
}

function parseModelList(payload: unknown, where: string): Model[] {
  const data = (payload as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new Error(`unexpected answer from ${where}: no "data" array`);
  const models: Model[] = [];
  const seen = new Set<string>();
  for (const entry of data) {
    const id = (entry as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || id === '' || seen.has(id)) continue;
    seen.add(id);
    const raw = entry as Record<string, unknown>;
    const known = knownLimits(id);
    const model: Model = { id };
    if (typeof raw.owned_by === 'string') model.ownedBy = raw.owned_by;
    // Some compatible servers report their own limits (OpenRouter, vLLM); they win over our table.
    const contextWindow = positiveInteger(raw.context_window) ?? positiveInteger(raw.context_length) ?? positiveInteger(raw.max_model_len);
    if (contextWindow ?? known?.contextWindow) model.contextWindow = contextWindow ?? known?.contextWindow;
    const maxOutputTokens = positiveInteger(raw.max_output_tokens) ?? known?.maxOutputTokens;
    if (maxOutputTokens !== undefined) model.maxOutputTokens = maxOutputTokens;
    models.push(model);
  }
  return models;
}

async function fetchModels(baseUrl: string, secret: string | undefined, timeoutMs: number): Promise<Model[]> {
  const url = modelsEndpoint(baseUrl);
  const where = url.toString();
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'agentform' };
  if (secret) headers.authorization = `Bearer ${secret}`;
  const signal = AbortSignal.timeout(timeoutMs);

  let payload: unknown;
  try {
    const response = await request(url, { method: 'GET', headers, signal });
    if (response.statusCode < 200 || response.statusCode >= 300) {
      await response.body.dump().catch(() => undefined);
      throw new Error(`HTTP ${response.statusCode}`);
    }
    payload = await response.body.json();
  } catch (err) {
    // Only our own text and the transport's message: the request headers (and so the secret) never appear.
    const reason = signal.aborted
      ? `timed out after ${timeoutMs} ms`
      : err instanceof SyntaxError
        ? 'the answer is not JSON'
        : err instanceof Error
          ? err.message
          : String(err);
    throw new Error(`could not list models at ${where}: ${reason}`, { cause: err });
  }
  return parseModelList(payload, where);
}

export async function listModels(provider: ProviderForCatalog, opts: ListModelsOptions = {}): Promise<Model[]> {
  if (provider.baseUrl) return fetchModels(provider.baseUrl, provider.secret, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  return builtInModels(provider.type);
}
