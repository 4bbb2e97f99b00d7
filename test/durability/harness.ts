// Shared pieces of the durability suites: a generated project of many resources, a local control
// plane started by the test (with faults), the real CLI pointed at it, and counting what exists.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlApiClient } from '../../src/api/client.js';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import type { FaultOptions } from '../../src/server/faults.js';
import { CLI, cliEnv, runCli, TEST_SERVER_PROFILE, type CliResult } from '../helpers/cli.js';

export interface ProjectShape {
  agents: number;
  providers: number;
  connections: number;
  secrets: number;
  /** API keys with a tokenFile under .agentform/tokens/. */
  apiKeys?: number;
  /** Environment slug (default dev). */
  env?: string;
}

export const SHAPE_DEFAULT: ProjectShape = { agents: 40, providers: 3, connections: 2, secrets: 4, apiKeys: 0 };

export interface Project {
  dir: string;
  shape: Required<ProjectShape>;
  /** Names per kind, as the API lists them. */
  names: { agents: string[]; providers: string[]; connections: string[]; secrets: string[]; apiKeys: string[] };
}

/** Every 5th agent delegates to the agent before it, so agents depend on agents as well as on providers. */
export async function generateProject(shape: ProjectShape, label = 'durability'): Promise<Project> {
  const full = { apiKeys: 0, env: 'dev', ...shape };
  const dir = await mkdtemp(join(tmpdir(), `agentform-${label}-`));
  const names = {
    providers: Array.from({ length: full.providers }, (_, i) => `prov${i}`),
    connections: Array.from({ length: full.connections }, (_, i) => `conn${i}`),
    secrets: Array.from({ length: full.secrets }, (_, i) => `secret${i}`),
    agents: Array.from({ length: full.agents }, (_, i) => `agent${String(i).padStart(3, '0')}`),
    apiKeys: Array.from({ length: full.apiKeys }, (_, i) => `key${i}`),
  };
  await writeFile(join(dir, 'agentform.yaml'), `version: 1\nenvironments:\n  ${full.env}:\n    url: local\ndefaultEnvironment: ${full.env}\n`);
  const docs = (items: string[]) => items.join('---\n');
  await writeFile(
    join(dir, 'providers.yaml'),
    docs(
      names.providers.map(
        (name) => `kind: Provider\nname: ${name}\nspec:\n  type: openai\n  secret: \${env:DURABILITY_PROVIDER_SECRET:-provider-secret-${name}}\n`,
      ),
    ),
  );
  await writeFile(
    join(dir, 'secrets.yaml'),
    docs(names.secrets.map((name) => `kind: Secret\nname: ${name}\nspec:\n  value: \${env:DURABILITY_SECRET:-secret-value-${name}}\n`)),
  );
  // Port 9 (discard) refuses at once: connections.test reports the tool server unreachable quickly.
  await writeFile(
    join(dir, 'connections.yaml'),
    docs(names.connections.map((name) => `kind: Connection\nname: ${name}\nspec:\n  url: http://127.0.0.1:9/mcp\n  auth:\n    type: svc-signed\n`)),
  );
  if (names.apiKeys.length > 0) {
    await writeFile(
      join(dir, 'apikeys.yaml'),
      docs(names.apiKeys.map((name) => `kind: ApiKey\nname: ${name}\nspec:\n  scopes: [read]\n  tokenFile: .agentform/tokens/${name}.token\n`)),
    );
  }
  await mkdir(join(dir, 'agents'));
  for (const [i, name] of names.agents.entries()) {
    await writeFile(
      join(dir, 'agents', `${name}.yaml`),
      agentYaml(name, i, names.providers[i % names.providers.length]!, i % 5 === 4 ? names.agents[i - 1] : undefined),
    );
  }
  return { dir, shape: full, names };
}

export function agentYaml(name: string, index: number, provider: string, subagent: string | undefined, maxTurns = 10 + (index % 7)): string {
  const sub = subagent ? `  subagents:\n    - kind: agent\n      name: helper\n      description: Helps.\n      agent: ${subagent}\n` : '';
  return `kind: Agent\nname: ${name}\nspec:\n  model:\n    provider: ${provider}\n    model: gpt-4o-mini\n  system: You are agent ${index}.\n  tools: []\n  policies: {}\n  limits:\n    maxTurns: ${maxTurns}\n${sub}`;
}

export interface Plane extends LocalControlPlane {
  dataDir: string;
  env: string;
  /** The CLI's environment: AGENTFORM_URL_<ENV>/AGENTFORM_TOKEN_<ENV> override the project's url: local. */
  cliEnv: NodeJS.ProcessEnv;
  /** A client without faults' retries budget concerns: many attempts, for counting afterwards. */
  client: ControlApiClient;
}

export async function startPlane(options: { faults?: FaultOptions; env?: string; environments?: string[] } = {}): Promise<Plane> {
  const env = options.env ?? 'dev';
  const dataDir = await mkdtemp(join(tmpdir(), 'agentform-durability-plane-'));
  const environments = options.environments ?? [env];
  const plane = await startLocalControlPlane({
    dataDir,
    environments,
    bakeMs: 20,
    profile: TEST_SERVER_PROFILE,
    ...(options.faults ? { faults: options.faults } : {}),
    onInternalError: (error) => process.stderr.write(`control plane internal error: ${String(error)}\n`),
  });
  const upper = env.toUpperCase().replace(/-/g, '_');
  const client = new ControlApiClient({
    baseUrl: plane.url,
    credential: { kind: 'key', token: plane.tokens[env]! },
    retry: { maxAttempts: 30, baseDelayMs: 5, maxDelayMs: 50 },
  });
  return {
    ...plane,
    dataDir,
    env,
    cliEnv: { [`AGENTFORM_URL_${upper}`]: plane.url, [`AGENTFORM_TOKEN_${upper}`]: plane.tokens[env]! },
    client,
    close: async () => {
      await client.close();
      await plane.close();
    },
  };
}

export function applyArgs(project: Project, extra: string[] = []): string[] {
  return ['apply', project.dir, '--auto-approve', '--parallelism', '8', ...extra];
}

export function apply(project: Project, plane: Plane, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runCli(applyArgs(project, extra), { env: { ...plane.cliEnv, ...env } });
}

export function planExitCode(project: Project, plane: Plane): Promise<CliResult> {
  return runCli(['plan', project.dir, '--detailed-exitcode'], { env: plane.cliEnv });
}

/** Applies, then re-runs while the run fails, at most `maxReruns` times; returns the exit codes. */
export async function applyUntilConverged(project: Project, plane: Plane, maxReruns: number): Promise<{ codes: number[]; last: CliResult }> {
  const codes: number[] = [];
  let last = await apply(project, plane);
  codes.push(last.code);
  while (last.code !== 0 && codes.length <= maxReruns) {
    last = await apply(project, plane);
    codes.push(last.code);
  }
  return { codes, last };
}

export interface Census {
  /** Names that exist more than once, per kind. */
  duplicates: string[];
  missing: string[];
  counts: Record<string, number>;
  /** Latest version per agent slug. */
  versions: Map<string, number>;
}

/** Counts what the server holds against what the project declares. */
export async function census(project: Project, plane: Plane): Promise<Census> {
  const { client } = plane;
  const lists: Record<string, string[]> = {
    providers: (await client.providersList()).map((item) => item.name),
    connections: (await client.connectionsList()).map((item) => item.name),
    secrets: (await client.secretsList()).map((item) => item.name),
    apiKeys: (await client.apiKeysList())
      .filter((key) => !key.revokedAt)
      .map((key) => key.name)
      .filter((name) => project.names.apiKeys.includes(name)),
    agents: (await client.agentsList()).map((item) => item.slug),
  };
  const duplicates: string[] = [];
  const missing: string[] = [];
  const counts: Record<string, number> = {};
  for (const [kind, listed] of Object.entries(lists)) {
    counts[kind] = listed.length;
    const seen = new Set<string>();
    for (const name of listed) {
      if (seen.has(name)) duplicates.push(`${kind}/${name}`);
      seen.add(name);
    }
    for (const name of project.names[kind as keyof Project['names']]) if (!seen.has(name)) missing.push(`${kind}/${name}`);
  }
  const versions = new Map<string, number>();
  for (const slug of project.names.agents) {
    if (lists.agents!.includes(slug)) versions.set(slug, (await client.agentsGet({ slug })).version);
  }
  return { duplicates, missing, counts, versions };
}

/** Files a crash could leave half-written: temp files of atomic writes anywhere in the project. */
export async function leftoverTempFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile() && /\.tmp$/.test(entry.name)).map((entry) => join(entry.parentPath, entry.name));
}

/** Deterministic numbers from a seed (mulberry32), for stop points and rates. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Spawned {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The CLI as a child we can signal; `onStdout` sees each chunk (to pick a stop point). */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv): Spawned {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}
