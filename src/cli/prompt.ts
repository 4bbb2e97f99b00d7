// The one confirmation prompt of every command that writes (apply, promote, rollback). Only `yes`
// proceeds. Ctrl-C or Ctrl-D at the prompt is an answer too: "cancelled", exit 1, never a crash.
import { createRequire } from 'node:module';
import { AbortedError, UserError } from '../errors.js';

/** What the terminal answered: the typed line, or undefined for Ctrl-C / Ctrl-D / a closed input. */
function ask(question: string): Promise<string | undefined> {
  // Loaded here, not with the module: apply loads this module on every run, and most runs never
  // ask (--auto-approve, a saved plan, CI), and node:readline takes time to load. Not import(): a
  // bundle chunk that imports dynamically loses its code cache (src/startup/bundle-code-cache.ts).
  const { createInterface } = createRequire(import.meta.url)('node:readline') as typeof import('node:readline');
  const prompt = createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY === true });
  return new Promise<string | undefined>((resolve) => {
    let answered = false;
    const finish = (answer: string | undefined) => {
      if (answered) return;
      answered = true;
      // Ctrl-C and Ctrl-D leave the cursor after the question: end that line before any message.
      if (answer === undefined) process.stderr.write('\n');
      prompt.close();
      resolve(answer);
    };
    prompt.on('SIGINT', () => finish(undefined));
    prompt.on('close', () => finish(undefined));
    prompt.question(question, (answer) => finish(answer));
  });
}

/**
 * Asks `question`; anything but `yes` cancels with "<What> cancelled." (exit 1). Without a terminal
 * it refuses unless `autoApprove`, naming the flag.
 */
export async function confirmOrRefuse(question: string, autoApprove: boolean | undefined, what: string): Promise<void> {
  if (autoApprove) return;
  if (!process.stdin.isTTY) {
    throw new UserError(
      `refusing to ${what} without confirmation: there is no terminal to ask`,
      'pass --auto-approve (in CI, after reviewing the change)',
    ).withCode('no_terminal');
  }
  const answer = await ask(question);
  if (answer?.trim() !== 'yes') throw new AbortedError(`${what[0]?.toUpperCase()}${what.slice(1)} cancelled.`);
}
