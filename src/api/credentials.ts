// API keys have the form svc_<env>_<secret>: the environment can be known before any request.
import { UserError } from '../errors.js';

export interface ParsedApiKey {
  environment: string;
  secret: string;
}

/** `<env>` is everything between `svc_` and the last `_` (a slug may hold `-` and `_`); `<secret>` has no `_`. */
export function parseApiKey(token: string): ParsedApiKey {
  // Greedy `\S+` runs to the last `_`, so `svc_pr-12_x_abc` is environment `pr-12_x`, secret `abc`.
  const match = /^svc_(\S+)_([^_\s]+)$/.exec(token.trim());
  if (!match?.[1] || !match[2]) {
    throw new UserError(
      `the API key is malformed (length ${token.length}): expected svc_<environment>_<secret>`,
      'check the variable or file it comes from; the key itself is not shown',
    );
  }
  return { environment: match[1], secret: match[2] };
}

export { isLoopbackHost } from '../util/loopback.js';
