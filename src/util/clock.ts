/** The longest delay setTimeout keeps (2^31 - 1 ms, ~24.8 days); beyond it, it fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

// A monotonic clock in milliseconds for timing requests and steps. Not `performance.now()`: its
// first use loads Node's perf_hooks, a cost to every plan and apply.
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
