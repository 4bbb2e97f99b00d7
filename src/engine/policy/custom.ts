// Custom rules from agentform.yaml: a JSON Schema each resource of the named kinds must satisfy.
// Compiled with ajv (pure computation; a schema that does not compile is reported, not thrown).
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { addressOf, type DesiredResource, type JsonObject, type ResourceKind } from '../../model/resources.js';
import type { PathSegment, RawFinding } from './types.js';

type AjvModule = typeof import('ajv/dist/2020.js');
/** ajv is loaded only when a project has custom rules: loading its compiler costs ~30 ms at start. */
function ajvClass(): AjvModule['Ajv2020'] {
  return (createRequire(import.meta.url)('ajv/dist/2020.js') as AjvModule).Ajv2020;
}

export interface CustomRule {
  id: string;
  message: string;
  kinds: ResourceKind[];
  schema: JsonObject;
}

export interface CompiledCustomRule extends CustomRule {
  validate: ValidateFunction;
}

/** Compiles every rule (over resources or over the plan); a schema that does not compile comes back as an error message. */
export function compileCustomRules<Rule extends { id: string; schema: JsonObject }>(
  rules: readonly Rule[],
): { compiled: Array<Rule & { validate: ValidateFunction }>; errors: Array<{ index: number; message: string }> } {
  if (rules.length === 0) return { compiled: [], errors: [] };
  // One instance per call: custom schemas never share ids with one another or the project's.
  const Ajv2020 = ajvClass();
  const ajv = new Ajv2020({ allErrors: false, strict: false, validateSchema: true });
  const compiled: Array<Rule & { validate: ValidateFunction }> = [];
  const errors: Array<{ index: number; message: string }> = [];
  rules.forEach((rule, index) => {
    try {
      compiled.push({ ...rule, validate: ajv.compile(rule.schema) });
    } catch (error) {
      errors.push({ index, message: `custom rule ${rule.id}: its schema does not compile: ${error instanceof Error ? error.message : String(error)}` });
    }
  });
  return { compiled, errors };
}

/** `/tools/0/name` → ['tools', 0, 'name']. */
function pathOf(pointer: string): PathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}

/** `tools.0.name must be string`; `root` names the value itself (a resource's spec, a plan's change). */
export function describe(error: ErrorObject, root = 'spec'): string {
  const where = error.instancePath === '' ? root : error.instancePath.slice(1).replace(/\//g, '.');
  return `${where} ${error.message ?? 'does not match'}`;
}

export function evaluateCustomRule(rule: CompiledCustomRule, resources: readonly DesiredResource[]): RawFinding[] {
  return resources
    .filter((resource) => rule.kinds.includes(resource.kind))
    .flatMap((resource): RawFinding[] => {
      if (rule.validate(resource.spec)) return [];
      const first = rule.validate.errors?.[0];
      return [
        {
          address: addressOf(resource.kind, resource.name),
          path: first ? pathOf(first.instancePath) : [],
          message: `${rule.message}${first ? ` (${describe(first)})` : ''}`,
        },
      ];
    });
}
