// `${…}` interpolation in string values:
//   ${file:PATH}            the file's text, PATH relative to the YAML file that names it
//   ${env:NAME}             an environment variable; ${env:NAME:-default} when unset or empty
//   ${var:NAME}             a variable of the environment (environments.<env>.variables)
//   $${                     a literal "${"
// (${param:NAME} is an AgentTemplate's, filled in before: src/config/template-resolution.ts.)
// Interpolation makes strings only; numbers and booleans come from literal YAML values.

export type Reference =
  | { type: 'file'; path: string; raw: string }
  | { type: 'env'; name: string; fallback?: string; raw: string }
  | { type: 'var'; name: string; raw: string };

export type Part = { text: string } | { reference: Reference };

export class InterpolationSyntaxError extends Error {}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Splits a string into literal text and references. Throws InterpolationSyntaxError. */
export function parseTemplate(input: string): Part[] {
  const parts: Part[] = [];
  let text = '';
  let index = 0;
  while (index < input.length) {
    if (input.startsWith('$${', index)) {
      text += '${';
      index += 3;
      continue;
    }
    if (!input.startsWith('${', index)) {
      text += input[index];
      index++;
      continue;
    }
    const end = input.indexOf('}', index + 2);
    if (end === -1) throw new InterpolationSyntaxError('unterminated "${": add the closing "}" (write "$${" for a literal "${")');
    const body = input.slice(index + 2, end);
    if (text) parts.push({ text });
    text = '';
    parts.push({ reference: parseReference(body) });
    index = end + 1;
  }
  if (text) parts.push({ text });
  return parts;
}

function parseReference(body: string): Reference {
  const raw = `\${${body}}`;
  const colon = body.indexOf(':');
  const type = colon === -1 ? body : body.slice(0, colon);
  const rest = colon === -1 ? '' : body.slice(colon + 1);
  switch (type) {
    case 'file':
      if (!rest) throw new InterpolationSyntaxError('${file:} needs a path, e.g. ${file:prompts/support.md}');
      return { type: 'file', path: rest, raw };
    case 'env': {
      const split = rest.indexOf(':-');
      const name = split === -1 ? rest : rest.slice(0, split);
      if (!ENV_NAME.test(name)) throw new InterpolationSyntaxError(`"${name}" is not an environment variable name (letters, digits and _)`);
      return split === -1 ? { type: 'env', name, raw } : { type: 'env', name, fallback: rest.slice(split + 2), raw: `\${env:${name}:-…}` };
    }
    case 'var':
      if (!rest) throw new InterpolationSyntaxError('${var:} needs a variable name');
      return { type: 'var', name: rest, raw };
    case 'param':
      // A template's ${param:} is filled in before interpolation (src/config/template-resolution.ts).
      throw new InterpolationSyntaxError('${param:NAME} is only filled in inside the spec of an AgentTemplate');
    default:
      throw new InterpolationSyntaxError(
        `unknown interpolation "\${${type}:…}": use \${file:PATH}, \${env:NAME} or \${var:NAME} (write "$\${" for a literal "\${")`,
      );
  }
}

export function hasInterpolation(input: string): boolean {
  return input.includes('${');
}

/** The single reference a write-only value must be: exactly one ${env:…} or ${file:…}, nothing else. */
export function singleSecretReference(input: string): Reference | undefined {
  let parts: Part[];
  try {
    parts = parseTemplate(input);
  } catch {
    return undefined;
  }
  if (parts.length !== 1) return undefined;
  const only = parts[0] as Part;
  if (!('reference' in only)) return undefined;
  return only.reference.type === 'var' ? undefined : only.reference;
}

/** NAME when `input` is exactly `${env:NAME}` (no fallback, nothing around it): a credential source. */
export function envReferenceName(input: string): string | undefined {
  const reference = singleSecretReference(input);
  return reference?.type === 'env' && reference.fallback === undefined ? reference.name : undefined;
}
