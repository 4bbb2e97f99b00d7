// Address globs: the one dialect of every rule that names resources by address (owns:, protect:,
// forget:, --exclude, ignore:). `*` is any run of characters (`/` and `:` too: a grant's name may
// hold either), `?` one character, the rest literal. Pure.

/** Patterns come from a few rules, but each is tested against every resource: compiled once. */
const compiled = new Map<string, RegExp>();
/** A bound on the cache: patterns are user input (an --exclude per run in a long-lived process). */
const MAX_COMPILED = 1000;

/** The pattern as an anchored regular expression. */
export function addressGlob(pattern: string): RegExp {
  let regex = compiled.get(pattern);
  if (!regex) {
    const body = pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    regex = new RegExp(`^${body}$`, 's');
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex;
}

/** Whether the glob `pattern` names `address`. */
export function addressMatches(pattern: string, address: string): boolean {
  return addressGlob(pattern).test(address);
}

/** How many patterns are compiled (for the test of the bound). */
export function compiledGlobCount(): number {
  return compiled.size;
}
