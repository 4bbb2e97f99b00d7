// Colours for renderers. Renderers receive a Palette and never decide about terminals themselves;
// `paletteFor(false)` is the identity, for files, pipes, tests and --no-color.
import { Chalk } from 'chalk';

export interface Palette {
  add(text: string): string;
  change(text: string): string;
  remove(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
  warn(text: string): string;
}

const identity = (text: string) => text;

export const PLAIN: Palette = { add: identity, change: identity, remove: identity, dim: identity, bold: identity, warn: identity };

export function paletteFor(color: boolean): Palette {
  if (!color) return PLAIN;
  const chalk = new Chalk({ level: 1 });
  return {
    add: (text) => chalk.green(text),
    change: (text) => chalk.yellow(text),
    remove: (text) => chalk.red(text),
    dim: (text) => chalk.dim(text),
    bold: (text) => chalk.bold(text),
    warn: (text) => chalk.yellow(text),
  };
}
