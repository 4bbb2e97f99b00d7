// Where a project's parse cache lives (parse-cache.ts). Apart, so that the V8 mode's choice at
// start-up (util/v8-mode.ts) can look at it without loading the cache's code.
import { join } from 'node:path';

/** The parse cache's directory for `projectDir`, or undefined when AGENTFORM_PARSE_CACHE turns it off. */
export function parseCacheDir(env: NodeJS.ProcessEnv, projectDir: string): string | undefined {
  const setting = env.AGENTFORM_PARSE_CACHE?.trim();
  if (setting === 'off' || setting === '0' || setting === 'false') return undefined;
  if (setting) return setting;
  return join(projectDir, '.agentform', 'cache', 'parse');
}
