/**
 * JavaScript source with every non-ASCII character written as a `\uXXXX` escape, which means the
 * same in strings, regular expressions and comments. V8 keeps a source with a single non-ASCII
 * character as two bytes per character: two arrows in a schema's text doubled the memory that
 * every run holds for the generated validators.
 */
export function asciiSource(code: string): string {
  return code.replace(/[^\x00-\x7f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
