// Environment variables as the code reads them: passed in, not read from process.env deep inside.

/** The process environment, or a table standing in for it in tests. */
export type Variables = Readonly<Record<string, string | undefined>>;

/** The first of `names` that is set and not blank (HTTPS_PROXY before https_proxy), if any. */
export function firstSet(env: Variables, names: readonly string[]): string | undefined {
  return names.find((name) => (env[name] ?? '').trim() !== '');
}
