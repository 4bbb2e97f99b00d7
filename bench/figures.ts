// One measured number, as bench/results.json stores it (so results compare run to run).
export interface Figure {
  scenario: string;
  metric: string;
  value: number;
  unit: 'ms' | 'MB' | 'requests' | 'requests/s' | 'modules';
  budget: number | null;
  /** What the network allows: round trips on the critical path × injected latency. */
  lowerBound: number | null;
  /** The same figure for the peer (Kong's decK), measured in the same run (scenarios/peer-deck.ts). */
  peer?: number;
}

export interface Scenario {
  name: string;
  run(): Promise<Figure[]>;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
