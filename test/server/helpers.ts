// Shared helpers for the local control plane tests: a server over a fresh temp dir and a plain
// fetch-based caller that returns status and parsed body (no retries, nothing hidden).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalControlPlane, type LocalControlPlane, type LocalControlPlaneOptions } from '../../src/server/embedded.js';

export interface Answer<T = any> {
  status: number;
  body: T;
  text: string;
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'agentform-cp-'));
}

export async function startServer(options: Partial<LocalControlPlaneOptions> = {}): Promise<LocalControlPlane & { dataDir: string; cleanup(): Promise<void> }> {
  const dataDir = options.dataDir ?? tempDir();
  // The dev endpoints (simulator, cookies, delivery list) are off by default; these tests use them.
  const plane = await startLocalControlPlane({ bakeMs: 50, hookRetry: { maxAttempts: 3, baseDelayMs: 5 }, devEndpoints: true, ...options, dataDir });
  return {
    ...plane,
    dataDir,
    cleanup: async () => {
      await plane.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type Credential = string | { cookie: string; organization?: string; environment?: string } | null;

export async function post<T = any>(
  url: string,
  path: string,
  body: unknown,
  credential: Credential,
  init: { method?: string; rawBody?: string } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (typeof credential === 'string') headers.authorization = `Bearer ${credential}`;
  else if (credential) {
    headers.cookie = credential.cookie;
    if (credential.organization) headers['x-svc-organization'] = credential.organization;
    if (credential.environment) headers['x-svc-environment'] = credential.environment;
  }
  const response = await fetch(`${url}${path}`, {
    method: init.method ?? 'POST',
    headers,
    body: init.method === 'GET' ? undefined : (init.rawBody ?? (body === undefined ? undefined : JSON.stringify(body))),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed as T, text };
}

export const rpcPath = (rpc: string): string => `/v1/${rpc.split('.').join('/')}`;

/** Calls an operation; `credential` is a bearer token, a cookie credential, or null for none. */
export function call<T = any>(url: string, rpc: string, body: unknown, credential: Credential): Promise<Answer<T>> {
  return post<T>(url, rpcPath(rpc), body, credential);
}

export const MINIMAL_DEFINITION = {
  name: 'Support',
  model: { provider: 'anthropic', model: 'claude-sonnet' },
  system: 'You help.',
  tools: [{ type: 'builtin', name: 'current_time' }],
  policies: {},
  limits: {},
};

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000, everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(everyMs);
  }
}
