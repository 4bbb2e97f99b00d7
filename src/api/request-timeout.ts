// How long one request may take, whole (connecting, sending, the whole answer): 30 s, or
// AGENTFORM_TIMEOUT seconds. A slow link or a very large list may need more; a CI job that must fail
// fast, less. A value that is not a positive number is an error, not a silent default.
import { UserError } from '../errors.js';
import { MAX_TIMER_MS } from '../util/clock.js';
import type { Variables } from '../util/variables.js';

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export function requestTimeoutMsFrom(env: Variables): number {
  const raw = env.AGENTFORM_TIMEOUT?.trim();
  if (!raw) return DEFAULT_REQUEST_TIMEOUT_MS;
  const seconds = /^(\d+\.?\d*|\.\d+)$/.test(raw) ? Number(raw) : Number.NaN;
  const ms = Math.round(seconds * 1000);
  if (!(ms >= 1) || ms > MAX_TIMER_MS) {
    throw new UserError(
      `AGENTFORM_TIMEOUT must be a number of seconds from 0.001 to ${Math.floor(MAX_TIMER_MS / 1000)}, not ${JSON.stringify(raw)}`,
      'e.g. AGENTFORM_TIMEOUT=120 (the default is 30)',
    );
  }
  return ms;
}
