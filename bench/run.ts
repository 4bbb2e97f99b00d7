// `npm run bench`: runs every scenario (or `--only <name>`), prints a table, writes bench/results.json.
// Benchmarks report; they never fail the build. See bench/README.md.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Figure, Scenario } from './figures.js';
import { SCENARIOS } from './scenarios/index.js';

function table(figures: Figure[]): string {
  const rows = figures.map((figure) => {
    const ratio = figure.lowerBound ? (figure.value / figure.lowerBound).toFixed(2) : '';
    const verdict = figure.budget === null ? '' : figure.value <= figure.budget ? 'ok' : 'OVER';
    const peer = figure.peer === undefined ? '' : `${figure.peer}`;
    const peerRatio = figure.peer ? (figure.value / figure.peer).toFixed(2) : '';
    return [
      figure.scenario,
      figure.metric,
      `${figure.value} ${figure.unit}`,
      figure.budget === null ? '' : `${figure.budget}`,
      figure.lowerBound === null ? '' : `${figure.lowerBound}`,
      ratio,
      peer,
      peerRatio,
      verdict,
    ];
  });
  const header = ['scenario', 'metric', 'value', 'budget', 'lower bound', 'ratio', 'decK', '÷ decK', ''];
  const widths = header.map((_, column) => Math.max(header[column]!.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const onlyIndex = process.argv.indexOf('--only');
  const only = onlyIndex >= 0 ? process.argv[onlyIndex + 1] : undefined;
  const chosen: Scenario[] = only ? SCENARIOS.filter((scenario) => scenario.name.includes(only)) : SCENARIOS;
  if (chosen.length === 0) {
    process.stderr.write(`no scenario matches ${only}; scenarios: ${SCENARIOS.map((scenario) => scenario.name).join(', ')}\n`);
    process.exitCode = 1;
    return;
  }
  const figures: Figure[] = [];
  for (const scenario of chosen) {
    process.stderr.write(`running: ${scenario.name}\n`);
    figures.push(...(await scenario.run()));
  }
  process.stdout.write(`${table(figures)}\n`);
  const out = fileURLToPath(new URL('../../bench/results.json', import.meta.url));
  await writeFile(out, `${JSON.stringify(figures, null, 2)}\n`);
  process.stderr.write(`wrote ${out}\n`);
}

await main();
