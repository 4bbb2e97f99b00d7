// Text from a server or a file is shown, never obeyed: a name holding `ESC[1A ESC[2K` must not erase
// the plan line above it, nor a `\r` or `\n` forge one. Every control character
// (util/control-characters.ts; tab and newline too: a name never needs them) is shown as the JSON
// escape `\uXXXX`, so what a reviewer reads is what is there.

import { CONTROL_CHARACTERS } from '../util/control-characters.js';

function escapeOne(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** `text` with every control character (see above) written as `\uXXXX`. */
export function visible(text: string): string {
  return text.replace(CONTROL_CHARACTERS, escapeOne);
}

/** Like `visible`, but keeps `\n`: for our own messages that span lines (errors, stack traces). */
export function visibleLines(text: string): string {
  return text.replace(CONTROL_CHARACTERS, (char) => (char === '\n' ? char : escapeOne(char)));
}
