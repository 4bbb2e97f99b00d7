// Runs the built CLI as a child process and measures wall time and peak RSS (via /usr/bin/time when present).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../cli/agentform.js', import.meta.url));
const TIME = '/usr/bin/time';

export interface TimedRun {
  code: number;
  stdout: string;
  stderr: string;
  wallMs: number;
  peakRssMb: number | null;
}

export function runCliTimed(args: string[], env: NodeJS.ProcessEnv): Promise<TimedRun> {
  const useTime = existsSync(TIME);
  const command = useTime ? TIME : process.execPath;
  const argv = useTime ? ['-f', 'PEAK_RSS_KB=%M', process.execPath, CLI, ...args] : [CLI, ...args];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      const rss = /PEAK_RSS_KB=(\d+)/.exec(stderr);
      resolve({ code: code ?? -1, stdout, stderr: stderr.replace(/PEAK_RSS_KB=\d+\n?/, ''), wallMs, peakRssMb: rss ? Number(rss[1]) / 1024 : null });
    });
  });
}

export function expectSuccess(run: TimedRun, what: string, allowed: number[] = [0]): void {
  if (!allowed.includes(run.code)) throw new Error(`${what} exited ${run.code}:\n${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`);
}

/** Runs the same command `runs` times: the median wall time, and the largest peak RSS seen. */
export async function runCliMedian(args: string[], env: NodeJS.ProcessEnv, runs: number, allowed: number[] = [0]): Promise<TimedRun> {
  const results: TimedRun[] = [];
  for (let i = 0; i < runs; i++) {
    const run = await runCliTimed(args, env);
    expectSuccess(run, `agentform ${args[0]}`, allowed);
    results.push(run);
  }
  const sorted = [...results].sort((a, b) => a.wallMs - b.wallMs);
  const median = sorted[Math.floor(sorted.length / 2)] as TimedRun;
  const rss = results.map((run) => run.peakRssMb).filter((value): value is number => value !== null);
  return { ...median, peakRssMb: rss.length > 0 ? Math.max(...rss) : null };
}
