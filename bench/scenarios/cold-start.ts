// `agentform --version` / `--help` against bare `node -e 0`: what starting the CLI costs.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, round, type Figure, type Scenario } from '../figures.js';

const CLI = fileURLToPath(new URL('../../cli/agentform.js', import.meta.url));
const RUNS = 15;

function wallMs(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    const result = spawnSync(process.execPath, args, { stdio: 'ignore' });
    if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}`);
    times.push(performance.now() - start);
  }
  return median(times);
}

export const coldStart: Scenario = {
  name: 'cold start',
  async run(): Promise<Figure[]> {
    const bare = wallMs(['-e', '0']);
    const version = wallMs([CLI, '--version']);
    const help = wallMs([CLI, '--help']);
    const figure = (metric: string, value: number, budget: number | null): Figure => ({
      scenario: 'agentform --version / --help',
      metric,
      value: round(value),
      unit: 'ms',
      budget,
      lowerBound: null,
    });
    return [
      figure('bare node -e 0 (median wall)', bare, null),
      figure('--version over bare node', version - bare, 120),
      figure('--help over bare node', help - bare, 120),
    ];
  },
};
