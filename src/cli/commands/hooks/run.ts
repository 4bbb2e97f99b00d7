import { UserError } from '../../../errors.js';
import { renderDelivery, renderRedeliverAll, renderRedeliverProgress, type RedeliverAllOutcome } from '../../../render/ops/hooks.js';
import type { GlobalOptions } from '../../global-options.js';
import { withConnection } from '../../../connect/project.js';
import type { RedeliverOptions } from './options.js';
import { printJson, progressEnabled } from '../../terminal.js';

/** A server that keeps saying "more" while requeueing nothing would loop forever; this many in a row stops it. */
const MAX_EMPTY_CALLS = 3;

function parseMaxCalls(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 100_000) throw new UserError(`--max-calls ${value}: expected a whole number from 1 to 100000`);
  return parsed;
}

export async function runRedeliver(id: string | undefined, options: RedeliverOptions, globals: GlobalOptions): Promise<void> {
  if (options.all && id) throw new UserError('give a delivery id or --all, not both');
  if (!options.all && !id) throw new UserError('which delivery? give its id, or --all to redeliver every one the server will requeue');
  const maxCalls = parseMaxCalls(options.maxCalls);
  await withConnection(options, globals, async ({ client }) => {
    if (id) {
      const delivery = await client.call('hooks.redeliver', { id });
      if (options.json) printJson(delivery);
      else process.stdout.write(`Requeued delivery ${delivery.id}.\n\n${renderDelivery(delivery, new Date())}\n`);
      return;
    }
    const outcome = await redeliverAll((request) => client.call('hooks.redeliverAll', request), maxCalls, progressEnabled() && !options.json);
    if (options.json) printJson(outcome);
    else process.stdout.write(`${renderRedeliverAll(outcome)}\n`);
    if (outcome.more) {
      throw new UserError(
        outcome.calls >= maxCalls
          ? `stopped after ${outcome.calls} hooks.redeliverAll calls while the server still reports more`
          : `stopped: the server reports more but requeued nothing in ${MAX_EMPTY_CALLS} calls in a row`,
        'run the command again, or raise --max-calls',
      );
    }
  });
}

/** Calls hooks.redeliverAll while `more` is true, within the bound, counting as it goes. */
export async function redeliverAll(
  call: (request: Record<string, never>) => Promise<{ requeued: number; more: boolean }>,
  maxCalls: number,
  showProgress: boolean,
): Promise<RedeliverAllOutcome> {
  let requeued = 0;
  let calls = 0;
  let emptyInARow = 0;
  let more = true;
  while (more && calls < maxCalls && emptyInARow < MAX_EMPTY_CALLS) {
    const answer = await call({});
    calls += 1;
    const count = Number.isFinite(answer.requeued) ? answer.requeued : 0;
    requeued += count;
    emptyInARow = count === 0 ? emptyInARow + 1 : 0;
    more = answer.more === true;
    if (showProgress) process.stderr.write(`\r${renderRedeliverProgress(requeued, calls, maxCalls)}\u001b[K`);
  }
  if (showProgress) process.stderr.write('\r\u001b[K');
  return { requeued, calls, more };
}
