// "Did you mean" suggestions by edit distance.

/** Edit distance where swapping two neighbours counts as one edit ("modle" → "model"). */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (beforePrevious[j - 2] as number) + 1);
      current[j] = best;
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length] as number;
}

/** The closest candidate, if it is close enough to be a likely typo (case differences count as close). */
export function closest(value: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const lower = value.toLowerCase();
  for (const candidate of candidates) {
    if (candidate === value) continue;
    const distance = candidate.toLowerCase() === lower ? 0.5 : levenshtein(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best === undefined) return undefined;
  const allowed = Math.max(1, Math.min(3, Math.floor(Math.max(value.length, best.length) / 3)));
  return bestDistance <= allowed ? best : undefined;
}

export function didYouMean(value: string, candidates: Iterable<string>): string {
  const match = closest(value, candidates);
  return match === undefined ? '' : `; did you mean "${match}"?`;
}
