// The cut of a pull-request comment under the forge's size limit (GitHub refuses a comment over
// 65,536 characters). Cut at a line boundary, close the code fence and the <details> left open, so
// what remains still renders, and end with a pointer to the full plan.

/** GitHub's limit on a comment's body. */
export const COMMENT_LIMIT = 65_536;
/** What a comment may hold: the limit less a margin for the forge's own counting (UTF-16 vs code points, line endings). */
export const COMMENT_BUDGET = 60_000;
/** What a job summary may hold: GitHub refuses a step's summary over 1 MiB; a margin for bytes beyond one a character. */
export const SUMMARY_BUDGET = 1_000_000;

// CommonMark: up to three spaces of indent; a backtick fence's info string holds no backtick, so a
// line opening with a code span (```a`b```) is text, not a fence.
const FENCE = /^ {0,3}(?:(`{3,})[^`]*|(~{3,}).*)$/;

/** The fence a line opens, per CommonMark; undefined when the line opens none. */
export function openingFence(line: string): string | undefined {
  const match = FENCE.exec(line);
  return match ? (match[1] ?? match[2]) : undefined;
}

interface Open {
  fence?: string;
  details: number;
}

function closers(open: Open): string[] {
  return [...(open.fence ? [open.fence] : []), ...Array.from({ length: open.details }, () => '</details>')];
}

function step(open: Open, line: string): Open {
  if (open.fence) {
    const run = /^ {0,3}(`+|~+)[ \t]*$/.exec(line)?.[1];
    const closes = run !== undefined && run[0] === open.fence[0] && run.length >= open.fence.length;
    return closes ? { details: open.details } : open;
  }
  const fence = openingFence(line);
  if (fence) return { ...open, fence };
  const opened = (line.match(/<details\b/gi) ?? []).length;
  const closed = (line.match(/<\/details>/gi) ?? []).length;
  return { details: Math.max(0, open.details + opened - closed) };
}

/**
 * The body as it is when it fits in `budget` characters; else its longest head of whole lines that,
 * with its open fence and <details> closed and the pointer appended, fits.
 */
export function cutComment(body: string, pointer: string, budget = COMMENT_BUDGET): string {
  if (body.length <= budget) return body;
  const lines = body.split('\n');
  const tail = (open: Open) => ['', ...closers(open), '', pointer].join('\n');
  let open: Open = { details: 0 };
  let length = 0;
  let kept = 0;
  let keptOpen = open;
  for (const [index, line] of lines.entries()) {
    const next = step(open, line);
    const nextLength = length + (index === 0 ? 0 : 1) + line.length;
    if (nextLength + tail(next).length > budget) break;
    open = next;
    length = nextLength;
    kept = index + 1;
    keptOpen = open;
  }
  return `${lines.slice(0, kept).join('\n')}${tail(keptOpen)}`;
}

/**
 * Each part's share of `budget`, water-filling: the parts are served shortest first, each taking
 * its whole length when that fits in an even share of what is left, so a short part leaves what it
 * does not need to the longer ones, and the parts that do not fit split the rest evenly.
 */
export function fairShares(lengths: readonly number[], budget: number): number[] {
  const shares = [...lengths];
  const shortestFirst = lengths.map((_, index) => index).sort((a, b) => (lengths[a] ?? 0) - (lengths[b] ?? 0));
  let left = Math.max(0, budget);
  for (const [served, index] of shortestFirst.entries()) {
    const share = Math.min(lengths[index] ?? 0, Math.floor(left / (shortestFirst.length - served)));
    shares[index] = share;
    left -= share;
  }
  return shares;
}
