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

/** Whether `longer` is `shorter` with a whole prefix of two or more characters added at a word start (`un`restricted, session.`re`started). */
function addsWordPrefix(longer: string, shorter: string): boolean {
  const added = longer.length - shorter.length;
  if (added < 2) return false;
  for (let at = 0; at <= shorter.length; at++) {
    if (at > 0 && !/[-_.]/.test(shorter[at - 1] as string)) continue;
    if (longer.slice(0, at) === shorter.slice(0, at) && longer.slice(at + added) === shorter.slice(at)) return true;
  }
  return false;
}

/**
 * The named value that `value` is most likely a typo of: one or two edits away (one when either is
 * three characters or shorter), or a difference of case. A whole word prefix added or dropped
 * (`restricted` beside `unrestricted`) makes another word, not a typo, so it does not count: an
 * open enumeration may well hold it.
 */
export function likelyTypoOf(value: string, named: readonly string[]): string | undefined {
  if (named.includes(value)) return undefined;
  const lower = value.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of named) {
    const other = candidate.toLowerCase();
    const distance = other === lower ? 0 : levenshtein(lower, other);
    const allowed = Math.min(2, Math.max(1, Math.floor(Math.min(lower.length, other.length) / 2)));
    if (distance > allowed || distance >= bestDistance) continue;
    if (addsWordPrefix(lower, other) || addsWordPrefix(other, lower)) continue;
    best = candidate;
    bestDistance = distance;
  }
  return best;
}

/**
 * The named value that `value` abbreviates: the named value's first two letters, then more of its
 * letters in order, three or more in all, in any case (`prod`, `prd`, `PROD` for production). Only
 * for values that change safety (x-changes-safety in the schemas), where taking a shorthand for
 * another value would silently relax the checks.
 */
export function abbreviationOf(value: string, named: readonly string[]): string | undefined {
  const lower = value.toLowerCase();
  if (lower.length < 3 || named.includes(value)) return undefined;
  return named.find((candidate) => {
    const word = candidate.toLowerCase();
    if (lower.length >= word.length || !word.startsWith(lower.slice(0, 2))) return false;
    let at = 2;
    for (const char of lower.slice(2)) {
      at = word.indexOf(char, at) + 1;
      if (at === 0) return false;
    }
    return true;
  });
}
