// How a single value is printed inside a plan: JSON, on one line.
import type { JsonValue } from '../model/resources.js';

export function formatValue(value: JsonValue | undefined): string {
  if (value === undefined) return '(absent)';
  return JSON.stringify(value);
}
