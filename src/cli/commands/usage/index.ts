import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import { addOpsOptions } from '../../ops-options.js';
import type { UsageOptions } from './options.js';

export function register(program: Command): void {
  addOpsOptions(
    program
      .command('usage')
      .description("per-key usage over a period: tokens, turns, calls, cost, and each as a share of the key's spend caps")
      .option('--from <when>', 'start: a date (2026-05-01), an RFC 3339 time, 7d / 30d (days back) or this-month (default)')
      .option('--to <when>', 'end: now (default), a date (the whole day counts), an RFC 3339 time, or 7d (days ago)')
      .option('--csv', 'print CSV (RFC 4180) for spreadsheets'),
  ).action(async (options: UsageOptions, command: Command) => {
    const { runUsage } = await import('./run.js');
    await runUsage(options, command.optsWithGlobals<GlobalOptions>());
  });
}
