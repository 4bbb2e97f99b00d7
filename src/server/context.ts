// What a handler gets: the database, who is calling and for which tenancy, and the server's
// collaborators (bake time, MCP and model catalog clients, the hook worker's wake-up).
import type { Scope } from '../model/api.js';
import type { ToolDescriptor, Model } from '../model/api.js';
import type { KeyBounds } from './key-bounds.js';
import type { ServerProfile } from './profiles.js';
import type { Db } from './store/db.js';
import { ServiceError } from './service-error.js';

export interface Tenancy {
  organizationId: string;
  /** The environment of the key (or of the key that minted the session cookie). */
  environmentId?: string;
  /** The API key making the request; absent for a cookie. */
  keyId?: string;
  scopes: ReadonlySet<Scope>;
  /** The key's identity scopes; empty means not limited to any. */
  identityScopes?: ReadonlySet<string>;
  /** The spend caps and expiry of the key (or of the cookie's key): what a key it creates is held to. */
  keyBounds?: KeyBounds;
  /** Recorded as createdBy: `key:<id>` or `session`. */
  actor: string;
}

export interface ServerServices {
  bakeMs: number;
  listTools(url: string, opts?: { timeoutMs?: number }): Promise<ToolDescriptor[]>;
  /** tools/call on a connection's MCP server (the dev tool-call endpoint, tool-calls.ts). */
  callTool(url: string, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  listModels(provider: { type: string; baseUrl?: string | null; secret?: string }): Promise<Model[]>;
  /** Tells the hook worker that deliveries may be due now. */
  wakeHooks(): void;
}

export interface HandlerContext {
  db: Db;
  tenancy: Tenancy;
  services: ServerServices;
  /** The server profile's choices (defaults, versioning); the answer's shape is applied in http.ts. */
  profile: ServerProfile;
  /** apiKeys.create: the live key of the same name the new one replaces (REPLACES_KEY_HEADER). */
  replacesKeyId?: string;
}

/** The environment an environment-scoped operation acts on. */
export function environmentOf(ctx: HandlerContext): string {
  const id = ctx.tenancy.environmentId;
  if (!id) {
    throw new ServiceError('invalid_argument', 'this operation needs an environment: send the x-svc-environment header with a session cookie', {
      field: 'x-svc-environment',
    });
  }
  return id;
}
