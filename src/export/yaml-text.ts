// YAML text for exported documents. Every string the server returned is escaped for
// interpolation (`${` → `$${`), so that a prompt-like value containing `${` reads back unchanged;
// only the references the exporter writes itself are left live.
import { stringify } from 'yaml';
import { schemaModeline } from '../config/modeline.js';
import type { JsonObject, JsonValue } from '../model/resources.js';

/** A string written into YAML verbatim: a `${env:…}` / `${file:…}` reference made by the exporter. */
export class Reference {
  constructor(readonly text: string) {}
}

export type ExportValue = JsonValue | Reference | ExportValue[] | { [key: string]: ExportValue };

export function escapeInterpolation(text: string): string {
  // A function replacement: in a replacement string `$$` would itself mean one `$`.
  return text.replaceAll('${', () => '$${');
}

function toPlain(value: ExportValue): JsonValue {
  if (value instanceof Reference) return value.text;
  if (typeof value === 'string') return escapeInterpolation(value);
  if (Array.isArray(value)) return value.map(toPlain);
  if (value !== null && typeof value === 'object') {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) out[key] = toPlain(item);
    return out;
  }
  return value;
}

export function yamlText(value: ExportValue): string {
  return stringify(toPlain(value), { lineWidth: 0, aliasDuplicateObjects: false });
}

/**
 * Several documents in one file at `path` (relative to the project), each preceded by its comment
 * lines; `schema` (`agent`, `provider`, …) adds the modeline to the schemas export writes beside them.
 */
export function yamlFile(path: string, schema: string | undefined, documents: Array<{ comments?: string[]; value: ExportValue }>): string {
  const header = schema ? [schemaModeline(`${schema}.schema.json`, path)] : [];
  const parts = documents.map((document) => [...(document.comments ?? []).map((line) => `# ${line}`), yamlText(document.value)].join('\n'));
  return `${[...header, '# Exported by agentform export.'].join('\n')}\n${parts.join('---\n')}`;
}
