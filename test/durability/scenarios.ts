// The durability scenarios, each one seed: shared by the quick suites (npm test, 3 seeds) and the
// stress suites (npm run test:stress, many seeds).
import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli } from '../helpers/cli.js';
import {
  agentYaml,
  apply,
  applyArgs,
  applyUntilConverged,
  census,
  generateProject,
  leftoverTempFiles,
  planExitCode,
  seeded,
  spawnCli,
  startPlane,
  type ProjectShape,
} from './harness.js';

export interface FaultOutcome {
  seed: number;
  /** Runs until exit 0, first run included, for the first apply and for the update. */
  runs: [number, number];
  duplicates: number;
}

/** Apply from empty under faults, then change a third of the agents under faults: converges, nothing twice. */
export async function faultScenario(
  seed: number,
  rates: { failRate: number; throttleRate: number; lostResponseRate: number },
  maxReruns: number,
  shape: ProjectShape,
): Promise<FaultOutcome> {
  const plane = await startPlane({ faults: { ...rates, seed } });
  try {
    const project = await generateProject(shape, `faults-${seed}`);
    const first = await applyUntilConverged(project, plane, maxReruns);
    expect(first.last.code, `seed ${seed}: ${first.last.stdout.slice(-2000)}\n${first.last.stderr}`).toBe(0);
    let counted = await census(project, plane);
    expect(counted.duplicates, `seed ${seed}`).toEqual([]);
    expect(counted.missing, `seed ${seed}`).toEqual([]);
    for (const slug of project.names.agents) expect(counted.versions.get(slug), `seed ${seed} ${slug}`).toBe(1);

    const changed = project.names.agents.filter((_, i) => i % 3 === 0);
    for (const slug of changed) {
      const i = project.names.agents.indexOf(slug);
      await writeFile(
        join(project.dir, 'agents', `${slug}.yaml`),
        agentYaml(slug, i, project.names.providers[i % project.names.providers.length]!, i % 5 === 4 ? project.names.agents[i - 1] : undefined, 99),
      );
    }
    const second = await applyUntilConverged(project, plane, maxReruns);
    expect(second.last.code, `seed ${seed}: ${second.last.stderr}`).toBe(0);
    counted = await census(project, plane);
    expect(counted.duplicates).toEqual([]);
    expect(counted.missing).toEqual([]);
    for (const slug of project.names.agents) expect(counted.versions.get(slug), `seed ${seed} ${slug}`).toBe(changed.includes(slug) ? 2 : 1);
    // Settled: faults still on, yet nothing left to do.
    const plan = await planExitCode(project, plane);
    expect([0, 1], plan.stderr).toContain(plan.code);
    if (plan.code === 1) expect((await planExitCode(project, plane)).code).toBe(0);
    return { seed, runs: [first.codes.length, second.codes.length], duplicates: counted.duplicates.length };
  } finally {
    await plane.close();
  }
}

export interface ThrottleOutcome {
  seed: number;
  /** The closing line of the first apply: how much throttling it met. */
  line: string;
}

/** The closing line a throttled run ends with (src/api/throttling.ts), or undefined. */
export function throttlingLine(stderr: string): string | undefined {
  const last = stderr.trimEnd().split('\n').at(-1);
  return last?.startsWith('Throttled: ') ? last : undefined;
}

const ALL_RETRIED = /^Throttled: \d+ of \d+ requests answered 429\/503; all tried again \(waits: \d+\.\d s in all\)$/;

/**
 * 30 % of requests answered 429 or 503, half each (the throttle draw applies to the requests not
 * failed with a 503: 15 % + 85 % × 15/85 = 30 %).
 */
export const THIRTY_PERCENT = { failRate: 0.15, throttleRate: 0.15 / 0.85 };

/**
 * Sustained throttling (issue 44, item 7): a share of requests answered 429 or 503, nothing lost.
 * Reads and writes are retried for time, so plan, apply and the plan after it each succeed on
 * their first run, every resource exists once, and each run says how much throttling it met.
 */
export async function throttleScenario(seed: number, rates: { failRate: number; throttleRate: number }, shape: ProjectShape): Promise<ThrottleOutcome> {
  const plane = await startPlane({ faults: { ...rates, seed } });
  try {
    const project = await generateProject(shape, `throttle-${seed}`);
    const plan = await runCli(['plan', project.dir, '--detailed-exitcode'], { env: plane.cliEnv });
    expect(plan.code, `seed ${seed}: ${plan.stderr}`).toBe(2);
    // A plan's few reads may all get through; when some were throttled, the run says so last.
    if (/Throttled/.test(plan.stderr)) expect(throttlingLine(plan.stderr), `seed ${seed}: ${plan.stderr}`).toMatch(ALL_RETRIED);
    const applied = await apply(project, plane);
    expect(applied.code, `seed ${seed}: ${applied.stderr}`).toBe(0);
    const line = throttlingLine(applied.stderr);
    expect(line, `seed ${seed}: ${applied.stderr}`).toMatch(ALL_RETRIED);
    const counted = await census(project, plane);
    expect(counted.duplicates, `seed ${seed}`).toEqual([]);
    expect(counted.missing, `seed ${seed}`).toEqual([]);
    for (const slug of project.names.agents) expect(counted.versions.get(slug), `seed ${seed} ${slug}`).toBe(1);
    const settled = await runCli(['plan', project.dir, '--detailed-exitcode', '--json'], { env: plane.cliEnv });
    expect(settled.code, `seed ${seed}: ${settled.stderr}`).toBe(0);
    // With --json, the closing line (when there is one) is JSON too.
    if (settled.stderr.trim() !== '') expect(JSON.parse(settled.stderr.trimEnd().split('\n').at(-1)!)).toMatchObject({ throttling: { gaveUp: 0 } });
    return { seed, line: line! };
  } finally {
    await plane.close();
  }
}

interface JsonEvent {
  type: string;
  address?: string;
  done?: Array<{ address: string }>;
  notStarted?: unknown[];
}

function events(stdout: string): JsonEvent[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as JsonEvent);
}

export interface InterruptOutcome {
  seed: number;
  signal: InterruptSignal;
  stopAfterDone: number;
  /** The first run's exit: 130 for SIGINT, null (killed) for SIGTERM and SIGKILL, 0 if it finished first. */
  firstExit: number | null;
  doneBeforeStop: number;
  reruns: number;
}

/** Stops apply after a seeded number of finished changes, checks what it reported, then re-runs to convergence. */
export type InterruptSignal = 'SIGINT' | 'SIGTERM' | 'SIGKILL';

export async function interruptScenario(seed: number, signal: InterruptSignal, shape: ProjectShape): Promise<InterruptOutcome> {
  // Latency keeps the run long enough to be stopped in the middle.
  const plane = await startPlane({ faults: { latencyMs: 25, seed } });
  try {
    const project = await generateProject(shape, `${signal.toLowerCase()}-${seed}`);
    const total =
      project.names.agents.length +
      project.names.providers.length +
      project.names.connections.length +
      project.names.secrets.length +
      project.names.apiKeys.length;
    const stopAfterDone = Math.floor(seeded(seed)() * total * 0.8);
    const run = spawnCli([...applyArgs(project), '--json'], plane.cliEnv);
    let sent = false;
    run.child.stdout!.on('data', () => {
      if (sent) return;
      const done = events(run.stdout()).filter((event) => event.type === 'done').length;
      if (done >= stopAfterDone && run.stdout().includes('"type":"start"')) {
        sent = true;
        run.child.kill(signal);
      }
    });
    const exit = await run.exited;
    const seen = events(run.stdout());
    const doneBeforeStop = seen.filter((event) => event.type === 'done').length;

    if (signal === 'SIGINT' && exit.code !== 0) {
      expect(exit.code, run.stderr()).toBe(130);
      expect(run.stderr()).toContain('Apply interrupted');
      const summary = seen.find((event) => event.type === 'summary');
      expect(summary, run.stdout()).toBeDefined();
      // In-flight requests finished: every start ended, and what the server holds is exactly what was reported done.
      const started = seen.filter((event) => event.type === 'start').map((event) => event.address);
      const ended = seen.filter((event) => event.type === 'done' || event.type === 'failed').map((event) => event.address);
      expect(ended.sort()).toEqual(started.sort());
      const reported = new Set(summary!.done!.map((item) => item.address));
      const counted = await census(project, plane);
      const held = Object.values(project.names).flat().length - counted.missing.length;
      expect(held, `seed ${seed}`).toBe(reported.size);
      for (const name of project.names.apiKeys) {
        if (reported.has(`apiKey/${name}`)) expect(existsSync(join(project.dir, '.agentform', 'tokens', `${name}.token`))).toBe(true);
      }
    }
    if (signal === 'SIGTERM' && exit.code !== 0) {
      // Ends as killed (no graceful stop for SIGTERM), once the log lines it had queued are out:
      // every line whole (events() parses each), and every change it reported done is on the server.
      expect(exit.signal, run.stderr()).toBe('SIGTERM');
      expect(run.stdout().endsWith('\n')).toBe(true);
      // census names `agents/x`, events `agent/x`: compared by name (names are unique across kinds here).
      const missing = new Set((await census(project, plane)).missing.map((entry) => entry.slice(entry.indexOf('/') + 1)));
      const reportedMissing = seen.filter((event) => event.type === 'done' && missing.has(String(event.address).slice(String(event.address).indexOf('/') + 1)));
      expect(reportedMissing, `seed ${seed}`).toEqual([]);
    }
    if (signal !== 'SIGINT') {
      expect(exit.signal === signal || exit.code === 0).toBe(true);
      // A killed process cannot remove the temporary file of a write it was in: at most a token's,
      // readable by its owner only; the re-run below must remove it (checked at the end).
      for (const file of await leftoverTempFiles(project.dir)) {
        expect(file).toMatch(/\/\.agentform\/tokens\/\.[^/]+\.token\.\d+\.[0-9a-f]+\.tmp$/);
        expect((await stat(file)).mode & 0o077).toBe(0);
      }
    } else {
      expect(await leftoverTempFiles(project.dir)).toEqual([]);
    }
    let reruns = 0;
    let last = await apply(project, plane);
    reruns += 1;
    if (last.code !== 0) {
      last = await apply(project, plane);
      reruns += 1;
    }
    expect(last.code, last.stderr).toBe(0);
    const counted = await census(project, plane);
    expect(counted.duplicates, `seed ${seed}`).toEqual([]);
    expect(counted.missing, `seed ${seed}`).toEqual([]);
    for (const slug of project.names.agents) expect(counted.versions.get(slug), `seed ${seed} ${slug}`).toBe(1);
    expect((await planExitCode(project, plane)).code).toBe(0);
    // A token file is whole or absent (a key created just before a SIGKILL has its token lost with the process).
    for (const name of project.names.apiKeys) {
      const file = join(project.dir, '.agentform', 'tokens', `${name}.token`);
      if (existsSync(file)) expect(await readFile(file, 'utf8')).toMatch(/^svc_[a-z0-9-]+_\S+\n$/);
    }
    expect(await leftoverTempFiles(project.dir)).toEqual([]);
    return { seed, signal, stopAfterDone, firstExit: exit.code, doneBeforeStop, reruns };
  } finally {
    await plane.close();
  }
}
