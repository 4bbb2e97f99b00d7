import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import { addOpsOptions, type OpsOptions } from '../../ops-options.js';
import type { EventsOptions } from './options.js';

/** `--type a,b --type c` → [a, b, c]. */
function collectTypes(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== ''),
  ];
}

export function register(program: Command): void {
  const sessions = program.command('sessions').description('inspect a session: its events and the tool calls waiting for a decision');
  addOpsOptions(
    sessions
      .command('events')
      .description('the recorded events of a session (seq, time, type, agent version, identity)')
      .argument('<id>', 'the session id')
      .option('--type <type>', 'only events of this type; repeat or separate by commas; a trailing * matches a prefix (session.*)', collectTypes)
      .option('-f, --follow', 'keep polling for new events and print each once, until interrupted (Ctrl-C)')
      .option('--interval <seconds>', 'with --follow: seconds between polls', '2'),
  ).action(async (id: string, options: EventsOptions, command: Command) => {
    const { runEvents } = await import('./run.js');
    await runEvents(id, options, command.optsWithGlobals<GlobalOptions>());
  });
  addOpsOptions(
    sessions
      .command('pending')
      .description('tool calls of a session that wait for a decision (tool, connection, who asked, expires in)')
      .argument('<id>', 'the session id'),
  ).action(async (id: string, options: OpsOptions, command: Command) => {
    const { runPending } = await import('./run.js');
    await runPending(id, options, command.optsWithGlobals<GlobalOptions>());
  });
}
