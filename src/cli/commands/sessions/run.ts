import type { RpcCaller } from '../../../api/operations.js';
import { UserError } from '../../../errors.js';
import type { SessionEvent } from '../../../model/api.js';
import { filterEvents, renderEventLine, renderEvents, renderPending } from '../../../render/ops/sessions.js';
import type { GlobalOptions } from '../../global-options.js';
import { withConnection } from '../../../connect/project.js';
import type { OpsOptions } from '../../ops-options.js';
import type { EventsOptions } from './options.js';
import { printJson, progressEnabled } from '../../terminal.js';

function parseInterval(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0.1 || seconds > 3600) throw new UserError(`--interval ${value}: expected seconds from 0.1 to 3600`);
  return seconds * 1000;
}

export async function runEvents(id: string, options: EventsOptions, globals: GlobalOptions): Promise<void> {
  const intervalMs = parseInterval(options.interval);
  await withConnection(options, globals, async ({ client }) => {
    if (!options.follow) {
      const events = filterEvents(await client.call('sessions.events', { id }), options.type ?? []).sort((a, b) => a.seq - b.seq);
      if (options.json) printJson(events);
      else process.stdout.write(`${renderEvents(events)}\n`);
      return;
    }
    if (progressEnabled()) process.stderr.write(`Following session ${id} (every ${intervalMs / 1000}s); Ctrl-C to stop.\n`);
    const stop = new AbortController();
    const onInterrupt = () => stop.abort();
    process.once('SIGINT', onInterrupt);
    process.once('SIGTERM', onInterrupt);
    try {
      await followEvents(client, id, options.type ?? [], intervalMs, stop.signal, (event) => {
        process.stdout.write(`${options.json ? JSON.stringify(event) : renderEventLine(event)}\n`);
      });
    } finally {
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onInterrupt);
    }
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

/**
 * Polls sessions.events until `signal` aborts, handing each matching event to `print` exactly once
 * (by seq: the API gives the whole list each time and says nothing of its order).
 */
export async function followEvents(
  client: RpcCaller,
  id: string,
  types: readonly string[],
  intervalMs: number,
  signal: AbortSignal,
  print: (event: SessionEvent) => void,
): Promise<void> {
  const seen = new Set<number>();
  while (!signal.aborted) {
    const events = await client.call('sessions.events', { id });
    if (signal.aborted) break;
    const fresh = events.filter((event) => !seen.has(event.seq)).sort((a, b) => a.seq - b.seq);
    for (const event of fresh) seen.add(event.seq);
    for (const event of filterEvents(fresh, types)) print(event);
    await sleep(intervalMs, signal);
  }
}

export async function runPending(id: string, options: OpsOptions, globals: GlobalOptions): Promise<void> {
  await withConnection(options, globals, async ({ client }) => {
    const calls = await client.call('sessions.pending', { id });
    if (options.json) printJson(calls);
    else process.stdout.write(`${renderPending(calls, new Date())}\n`);
  });
}
