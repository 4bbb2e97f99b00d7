// The one off switch for every speed-up that has a plain way to do the same work (docs/performance.md
// lists them). AGENTFORM_OPTIMIZATIONS=off runs the plain way everywhere: a way out should one of
// them be suspected, and how the tests prove that each can be removed. A list of names with a minus
// (`-parse-cache,-client-http`) turns off those alone, to measure one against the build without it.

/** Every speed-up the switch knows, by the name a list gives it. */
export const OPTIMIZATIONS = ['startup', 'yaml-plain', 'parse-cache', 'client-http', 'server-http', 'group-commit'] as const;
export type Optimization = (typeof OPTIMIZATIONS)[number];

/** Whether AGENTFORM_OPTIMIZATIONS turns `name` off: `off` (or `0`, `false`) turns off all, `-name` that one. */
export function optimizationsOff(env: NodeJS.ProcessEnv, name: Optimization): boolean {
  const setting = env.AGENTFORM_OPTIMIZATIONS?.trim().toLowerCase();
  if (!setting) return false;
  if (setting === 'off' || setting === '0' || setting === 'false') return true;
  return setting.split(',').some((part) => part.trim() === `-${name}`);
}
