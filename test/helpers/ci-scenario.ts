// What the GitLab and GitHub pipeline tests share (test/examples/*-pipeline.test.ts): the small
// config repository they drive through the loop, the packed tarball it pins, a control plane with
// a read-only and a control key per environment, and the runner machine's environment.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ControlApiClient } from '../../src/api/client.js';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { REPO } from './cli.js';

const run = promisify(execFile);

export const ENVIRONMENTS = ['staging', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const ROOT = `version: 1
environments:
  staging:
    url: https://control.staging.example.com
    token: \${env:AGENTFORM_STAGING_TOKEN}
    prune: true
  production:
    url: https://control.example.com
    token: \${env:AGENTFORM_PRODUCTION_TOKEN}
    prune: true
`;

export const PROVIDER = `kind: Provider
name: openai
spec:
  type: openai
  secret: \${env:OPENAI_API_KEY}
`;

export const PROVIDER_SECRET = 'sk-pipeline-provider-secret';

/** The support agent; production pinned to a staging version once `promoted` is given. */
export const agent = (system: string, promoted?: number) => `kind: Agent
name: support
spec:
  model: {provider: openai, model: gpt-4o-mini}
  system: ${system}
  tools: []
  policies: {toolCalls: {default: deny}}
  limits: {maxTurns: 10}
${promoted === undefined ? '' : `overlays:\n  production:\n    promote: {from: staging, version: ${promoted}}\n`}`;

/**
 * The package as a config repository pins it: `npm pack` of this checkout, copied to `target`
 * (--ignore-scripts: dist/ is already built by the test setup; packing must not rebuild it under
 * other tests).
 */
export async function packInto(work: string, target: string): Promise<void> {
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: REPO, maxBuffer: 16 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
  await mkdir(dirname(target), { recursive: true });
  await copyFile(join(work, packed!.filename), target);
}

export interface CiPlane {
  plane: LocalControlPlane;
  /** A client per environment with the plane's own key (the administrator's). */
  admin: Record<Environment, ControlApiClient>;
  /** What a repository's secrets hold: `ci-read` (read) and `ci-control` (read, control) per environment. */
  keys: { read: Record<Environment, string>; control: Record<Environment, string> };
  close(): Promise<void>;
}

export async function startCiPlane(dataDir: string): Promise<CiPlane> {
  const plane = await startLocalControlPlane({ dataDir, environments: [...ENVIRONMENTS], bakeMs: 10 });
  const admin = {} as Record<Environment, ControlApiClient>;
  const keys = { read: {} as Record<Environment, string>, control: {} as Record<Environment, string> };
  for (const environment of ENVIRONMENTS) {
    admin[environment] = new ControlApiClient({ baseUrl: plane.url, credential: { kind: 'key', token: plane.tokens[environment] as string } });
    keys.read[environment] = (await admin[environment].apiKeysCreate({ key: { name: 'ci-read', scopes: ['read'] } })).token;
    keys.control[environment] = (await admin[environment].apiKeysCreate({ key: { name: 'ci-control', scopes: ['read', 'control'] } })).token;
  }
  return {
    plane,
    admin,
    keys,
    close: async () => {
      for (const client of Object.values(admin)) await client.close();
      await plane.close();
    },
  };
}

/**
 * The runner machine's environment: the recipes' global install goes to a prefix of the test's
 * (never the machine's), with npm's own cache; `PATH` starts with that prefix's bin.
 */
export function runnerMachineEnv(work: string, pathAfterPrefix: string[]): Record<string, string> {
  const prefix = join(work, 'prefix');
  return {
    PATH: [join(prefix, 'bin'), ...pathAfterPrefix, '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: join(work, 'home'),
    npm_config_prefix: prefix,
    npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm'),
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
    NO_COLOR: '1',
  };
}

/** git in `repo`, as a reviewer; its trimmed output. */
export async function gitIn(repo: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-c', 'user.name=Reviewer', '-c', 'user.email=reviewer@example.com', ...args], { cwd: repo });
  return stdout.trim();
}

/** Writes `files` into `repo` and commits them; the new commit's sha. */
export async function commitFiles(repo: string, files: Record<string, string>, message: string): Promise<string> {
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(repo, name)), { recursive: true });
    await writeFile(join(repo, name), text);
  }
  await gitIn(repo, 'add', '-A');
  await gitIn(repo, 'commit', '-q', '-m', message);
  return gitIn(repo, 'rev-parse', 'HEAD');
}
