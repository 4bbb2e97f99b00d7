// The characters that can change what a terminal or a Markdown page shows instead of being shown:
// C0 controls, DEL, C1 controls (U+009B is a one-character CSI), the Unicode line and paragraph
// separators, and the bidi overrides and isolates (they reorder what is read).
// Shared by the renderers (which escape them) and the local control plane (which refuses them in names).

const CONTROL_CLASS = '[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]';

/** Matches every control character (global: for replace). */
export const CONTROL_CHARACTERS = new RegExp(CONTROL_CLASS, 'g');

/** The first control character of `text`, or undefined. */
export function firstControlCharacter(text: string): string | undefined {
  return new RegExp(CONTROL_CLASS).exec(text)?.[0];
}
