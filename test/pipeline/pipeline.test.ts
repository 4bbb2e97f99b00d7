// The plan pipeline as a library: open (load, pick, connect) and plan are separate inputs, the
// read-ahead belongs to its session and is taken once, and local planes belong to the run that
// opened them (no module state: two runs never share one).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalPlanes, type LocalPlane } from '../../src/connect/local-planes.js';
import { planSession } from '../../src/pipeline/plan.js';
import { openEnvironmentSession, openSession, runContext, type RunContext } from '../../src/pipeline/session.js';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';

const AGENT = 'kind: Agent\nname: helper\nspec:\n  model: {provider: main, model: gpt-4o}\n  system: Be brief.\n';
const PROVIDER = 'kind: Provider\nname: main\nspec:\n  type: openai\n  secret: ${env:PIPELINE_SECRET:-x}\n';

async function project(environments: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentform-pipeline-'));
  await writeFile(join(dir, 'agentform.yaml'), `version: 1\nenvironments:\n${environments}`);
  await mkdir(join(dir, 'agents'));
  await writeFile(join(dir, 'providers.yaml'), PROVIDER);
  await writeFile(join(dir, 'agents', 'helper.yaml'), AGENT);
  return dir;
}

/** A run context whose planes are counted (the real plane starter behind it). */
function countingRun(env: Record<string, string | undefined>): { run: RunContext; starts: string[] } {
  const starts: string[] = [];
  const real = new LocalPlanes();
  const planes = new LocalPlanes(async (dataDir, environments, vars) => {
    starts.push(dataDir);
    const held = await real.acquire(dataDir, environments, vars);
    const plane: LocalPlane = { ...held.plane, close: held.release };
    return plane;
  });
  return { run: { flags: {}, env, planes }, starts };
}

describe('the plan pipeline against a remote environment', () => {
  let plane: LocalControlPlane;
  beforeAll(async () => {
    plane = await startLocalControlPlane({ dataDir: await mkdtemp(join(tmpdir(), 'agentform-pipeline-data-')), environments: ['dev'] });
  });
  afterAll(async () => {
    await plane.close();
  });

  it('opens, then plans with its own inputs: prune and targets never go through open', async () => {
    const dir = await project(`  dev:\n    url: ${plane.url}\n    token: \${env:PIPELINE_TOKEN}\n`);
    const session = await openSession({ dir }, runContext({}, { PIPELINE_TOKEN: plane.tokens.dev }));
    try {
      expect(session.desired.target.slug).toBe('dev');
      expect(session.isLocal).toBe(false);
      expect(session.targetLabel).toBe(plane.url);
      const all = await planSession(session);
      expect(all.plan.changes.map((change) => `${change.action} ${change.kind}/${change.name}`).sort()).toEqual([
        'create agent/helper',
        'create provider/main',
        // The key this run uses is in the view like any other (a remote plane: not hidden).
        'unmanaged apiKey/local-dev',
      ]);
      const targeted = await planSession(session, { targets: ['provider/main'] });
      expect(targeted.plan.changes.map((change) => `${change.kind}/${change.name}`)).toEqual(['provider/main']);
    } finally {
      await session.close();
    }
  });

  it('the read-ahead is taken once: the second plan reads the state again', async () => {
    const dir = await project(`  dev:\n    url: ${plane.url}\n    token: \${env:PIPELINE_TOKEN}\n`);
    const session = await openSession({ dir, readAhead: true }, runContext({}, { PIPELINE_TOKEN: plane.tokens.dev }));
    try {
      const ahead = session.takeReadAhead();
      expect(ahead).toBeInstanceOf(Promise);
      await ahead;
      expect(session.takeReadAhead()).toBeUndefined();
    } finally {
      await session.close();
    }
  });

  it('without readAhead nothing is read before planSession', async () => {
    const dir = await project(`  dev:\n    url: ${plane.url}\n    token: \${env:PIPELINE_TOKEN}\n`);
    const session = await openSession({ dir }, runContext({}, { PIPELINE_TOKEN: plane.tokens.dev }));
    try {
      expect(session.takeReadAhead()).toBeUndefined();
    } finally {
      await session.close();
    }
  });

  it('the guard refuses a key of another environment when opening', async () => {
    const dir = await project(`  prod:\n    url: ${plane.url}\n    token: \${env:PIPELINE_TOKEN}\n`);
    await expect(openSession({ dir }, runContext({}, { PIPELINE_TOKEN: plane.tokens.dev }))).rejects.toThrow(/is for environment dev, not prod/);
  });
});

describe('local planes belong to the run', () => {
  it('two sessions of one run share one plane; it closes with the last session', async () => {
    const dir = await project('  dev:\n    url: local\n  staging:\n    url: local\n');
    const { run, starts } = countingRun({});
    const dev = await openSession({ dir, environment: 'dev' }, run);
    const staging = await openEnvironmentSession(dev.project, 'staging', run);
    expect(starts).toEqual([join(dir, '.agentform', 'local')]);
    expect(dev.isLocal && staging.isLocal).toBe(true);
    expect(run.planes.size).toBe(1);
    await staging.close();
    expect(run.planes.size).toBe(1);
    await dev.close();
    expect(run.planes.size).toBe(0);
    expect(existsSync(join(dir, '.agentform', 'local'))).toBe(true);
  });

  it('two runs do not share: each starts (and closes) its own', async () => {
    const first = await project('  dev:\n    url: local\n');
    const second = await project('  dev:\n    url: local\n');
    const a = countingRun({});
    const b = countingRun({});
    const one = await openSession({ dir: first }, a.run);
    const two = await openSession({ dir: second }, b.run);
    expect(a.starts).toHaveLength(1);
    expect(b.starts).toHaveLength(1);
    await one.close();
    await two.close();
  });
});
