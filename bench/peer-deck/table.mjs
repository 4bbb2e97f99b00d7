// Renders results.json (from runner.mjs) as a Markdown table: one row per tool, scenario, N, latency.
import { readFileSync } from 'node:fs';

const { results, reps, parallelism } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const NAMES = {
  bare: ['bare `node -e 0`', 'bare `node -e 0`'],
  startup: ['startup (`version`)', 'startup (`--version`)'],
  validate: ['`deck validate`', '`agentform validate`'],
  sync: [`\`deck sync\` from empty, --parallelism ${parallelism}`, `\`apply\` from empty, --parallelism ${parallelism}`],
  nochange: ['`deck diff`, no changes', '`plan`, no changes'],
  changed: ['`deck diff`, 10 % changed', '`plan`, 10 % changed'],
};
const key = (r) => `${r.scenario}|${r.n}|${r.latency}`;
// Optional second results file: its agentform/decK ratio is shown in an extra column.
const other = process.argv[3] ? JSON.parse(readFileSync(process.argv[3], 'utf8')).results : null;
const otherRatio = (r) => {
  if (!other) return '';
  const a = other.find((x) => x.tool === 'agentform' && key(x) === key(r));
  const d = other.find((x) => x.tool === 'deck' && key(x) === key(r));
  return a && d ? ` ${(a.wallMs / d.wallMs).toFixed(1)}× |` : ' |';
};
const deck = new Map(results.filter((r) => r.tool === 'deck').map((r) => [key(r), r]));
const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`);

const lines = [
  `| tool | scenario | N | latency | wall (median of ${reps}) | peak RSS | CPU client / server | requests | lower bound | agentform / decK |${other ? ' other run |' : ''}`,
  `|---|---|--:|--:|--:|--:|--:|--:|--:|--:|${other ? '--:|' : ''}`,
];
for (const r of results) {
  // The bare row runs `node -e 0` in both slots (interleaved like the rest): show it once.
  if (r.scenario === 'bare' && r.tool === 'deck') continue;
  const d = deck.get(key(r));
  const ratio = r.tool === 'agentform' && d && r.scenario !== 'bare' ? `**${(r.wallMs / d.wallMs).toFixed(1)}×**` : '';
  const name = NAMES[r.scenario][r.tool === 'deck' ? 0 : 1];
  lines.push(
    `| ${r.scenario === 'bare' ? 'node' : r.tool === 'deck' ? 'decK 1.4.0' : 'agentform'} | ${name} | ${r.n || '–'} | ${['bare', 'startup', 'validate'].includes(r.scenario) ? '–' : `${r.latency} ms`} | ${fmt(r.wallMs)} | ${Math.round(r.rssMb)} MB | ${fmt(r.clientCpuMs)}${r.requests ? ` / ${fmt(r.serverCpuMs)}` : ''} | ${r.requests || '–'} | ${r.requests ? `${r.roundTrips} RT = ${fmt(r.lowerBoundMs)}` : '–'} | ${ratio} |${r.tool === 'agentform' ? otherRatio(r) : other ? ' |' : ''}`,
  );
}
console.log(lines.join('\n'));
