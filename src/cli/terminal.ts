// What the terminal allows: colour, progress lines. Read from the stream and the environment.
import type { GlobalOptions } from './global-options.js';

/** Colour only on a terminal, never with NO_COLOR or --no-color. */
export function useColor(globals: Pick<GlobalOptions, 'color'>, stream: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  if (globals.color === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true;
}

/** Progress lines go to a terminal only: CI logs and pipes stay quiet. */
export function progressEnabled(stream: NodeJS.WriteStream = process.stderr, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && (env.CI === undefined || env.CI === '' || env.CI === 'false');
}

/** A JSON answer on stdout, for scripts. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
