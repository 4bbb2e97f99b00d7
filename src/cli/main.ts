// The CLI (loaded by bin.ts in the bundle): wires commander, and is the only place that maps errors to exit codes.
// Command modules are light (options only) and import their heavy layers inside their action,
// so `--version` and `--help` stay close to bare-node start time.
import { Command, CommanderError } from 'commander';
import { commandsFor } from './commands/index.js';
import { RUN_THROTTLING } from '../api/throttling.js';
import { addGlobalOptions } from './global-options.js';
import { reportError } from './report-error.js';
import { VERSION } from './version.js';

export async function main(argv: string[]): Promise<number> {
  const program = new Command('agentform')
    .description('Declarative configuration for the Agent Hosting Control API')
    .version(VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text) })
    .showHelpAfterError('(run with --help for usage)');
  addGlobalOptions(program);
  const outcome = { exitCode: 0 };
  for (const register of commandsFor(argv)) register(program, outcome);

  // --json anywhere on the line (plan, apply, validate, the operations commands): errors, and the throttling line, as JSON too.
  const json = argv.slice(2).includes('--json');
  try {
    await program.parseAsync(argv);
    return outcome.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here with exit code 0; usage errors with 1.
      return error.exitCode === 0 ? 0 : 1;
    }
    return reportError(error, program.opts<{ debug?: boolean }>().debug === true, json);
  } finally {
    // The run's last line, when the server throttled it: how much, and what it cost.
    const throttling = RUN_THROTTLING.summary(json);
    if (throttling) process.stderr.write(`${throttling}\n`);
  }
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`agentform: internal error: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
