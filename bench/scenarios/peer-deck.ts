// Side by side with the closest peer, Kong's decK 1.4 (issue 17): the same shape of work (N objects;
// validate; apply/sync from empty at --parallelism 16; plan/diff with no changes and with 10 %
// changed; 0 and 20 ms of latency added inside each server), runs interleaved, via
// bench/peer-deck/runner.mjs. Skipped with a notice when `deck` or /usr/bin/time is missing.
// Each figure carries its network lower bound and decK's figure beside it; none has a budget (the
// targets are ratios: bench/README.md).
//   npm run bench -- --only decK          PEER_SIZES=20,1000 PEER_LATENCIES=0,20 PEER_REPS=3 (defaults)
//   PEER_PARSE_CACHE=off                  measure agentform with its parse cache off
//   PEER_DURABILITY=normal                the local control plane without an fsync per commit (decK's mock keeps nothing)
//   PEER_FLEET=templated                  agentform's agents written from AgentTemplates (bench/lib/generate-templated.ts)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { round, type Figure, type Scenario } from '../figures.js';

const HERE = fileURLToPath(new URL('../../../bench/peer-deck/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface PeerRow {
  tool: 'deck' | 'agentform';
  scenario: 'bare' | 'startup' | 'validate' | 'sync' | 'nochange' | 'changed';
  n: number;
  latency: number;
  wallMs: number;
  rssMb: number;
  clientCpuMs: number;
  requests: number;
  lowerBoundMs: number;
}

const NAMES: Record<PeerRow['scenario'], string> = {
  bare: 'bare node -e 0',
  startup: '--version',
  validate: 'validate',
  sync: 'apply from empty, parallelism 16',
  nochange: 'plan, no changes',
  changed: 'plan, 10 % changed',
};

function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** agentform's rows as figures, each with decK's beside it and the network lower bound. */
export function peerFigures(rows: PeerRow[]): Figure[] {
  const key = (row: PeerRow) => `${row.scenario}|${row.n}|${row.latency}`;
  const deck = new Map(rows.filter((row) => row.tool === 'deck').map((row) => [key(row), row]));
  const bare = rows.find((row) => row.scenario === 'bare' && row.tool === 'agentform');
  const figures: Figure[] = [];
  for (const row of rows) {
    if (row.tool !== 'agentform') continue;
    const peer = deck.get(key(row));
    const online = !['bare', 'startup', 'validate'].includes(row.scenario);
    const scenario = `vs decK: ${NAMES[row.scenario]}${row.n ? `, N=${row.n}` : ''}${online ? `, ${row.latency} ms latency` : ''}`;
    const figure = (metric: string, value: number, unit: Figure['unit'], peerValue: number | undefined, lowerBound: number | null = null): Figure => ({
      scenario,
      metric,
      value: round(value),
      unit,
      budget: null,
      lowerBound,
      ...(peerValue === undefined ? {} : { peer: round(peerValue) }),
    });
    if (row.scenario === 'bare') {
      figures.push(figure('wall (median)', row.wallMs, 'ms', undefined), figure('peak RSS', row.rssMb, 'MB', undefined));
      continue;
    }
    figures.push(figure('wall (median)', row.wallMs, 'ms', peer?.wallMs, online && row.latency > 0 ? row.lowerBoundMs : null));
    figures.push(figure('client CPU (median)', row.clientCpuMs, 'ms', peer?.clientCpuMs));
    // The target: agentform's RSS above a bare Node process at or below decK's whole RSS.
    if (bare) figures.push(figure('peak RSS above bare node (decK: whole)', row.rssMb - bare.rssMb, 'MB', peer?.rssMb));
    if (online) figures.push(figure('requests', row.requests, 'requests', peer?.requests));
  }
  return figures;
}

export const peerDeck: Scenario = {
  name: 'peer decK side by side',
  async run(): Promise<Figure[]> {
    const missing = !onPath('deck')
      ? 'deck (Kong decK 1.4: apt-get install -y deck)'
      : !existsSync('/usr/bin/time')
        ? '/usr/bin/time (apt-get install -y time)'
        : undefined;
    if (missing) {
      process.stderr.write(`  skipped: ${missing} is not installed; the side-by-side figures need it\n`);
      return [];
    }
    const out = mkdtempSync(join(tmpdir(), 'agentform-peer-deck-'));
    try {
      const sizes = process.env.PEER_SIZES ?? '20,1000';
      const env = {
        ...process.env,
        AF: ROOT,
        PEER_OUT: out,
        DECK_ANALYTICS: 'off',
        // A cache of its own, cold at the start (the untimed warm-up run fills it), unless turned off.
        AGENTFORM_PARSE_CACHE: process.env.PEER_PARSE_CACHE === 'off' ? 'off' : join(out, 'parse-cache'),
        ...(process.env.PEER_FLEET === 'templated' ? { AF_GENERATE: join(ROOT, 'dist/bench/lib/generate-templated.js') } : {}),
      };
      process.stderr.write(
        `  load average before: ${loadavg()
          .map((value) => value.toFixed(2))
          .join(' ')}\n`,
      );
      const gen = spawnSync(process.execPath, [join(HERE, 'gen.mjs'), ...sizes.split(',')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
      if (gen.status !== 0) throw new Error('bench/peer-deck/gen.mjs failed');
      const args = [
        '--sizes',
        sizes,
        '--latencies',
        process.env.PEER_LATENCIES ?? '0,20',
        '--reps',
        process.env.PEER_REPS ?? '3',
        '--out',
        join(out, 'results.json'),
      ];
      const run = spawnSync(process.execPath, [join(HERE, 'runner.mjs'), ...args], { env, stdio: ['ignore', 'inherit', 'inherit'] });
      if (run.status !== 0) throw new Error('bench/peer-deck/runner.mjs failed');
      process.stderr.write(
        `  load average after: ${loadavg()
          .map((value) => value.toFixed(2))
          .join(' ')}\n`,
      );
      const table = spawnSync(process.execPath, [join(HERE, 'table.mjs'), join(out, 'results.json')], { encoding: 'utf8' });
      process.stderr.write(table.stdout);
      return peerFigures((JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { results: PeerRow[] }).results);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
};
