// The MCP `explain` tool: a policy rule (by the id a finding carries) or a configuration field (by
// its path in a kind's spec), from what agentform already holds: the built-in rules' rationales and
// severities, and the descriptions in the JSON Schemas. No I/O beyond reading the schemas.
import { specSchemas } from '../../../config/schemas.js';
import { UserError } from '../../../errors.js';
import { BUILTIN_RULES, PLAN_RULES } from '../../../engine/policy/index.js';
import { resolveSchemaRef, type SpecSchema } from '../../../export/prune.js';

export type ExplainKind = keyof ReturnType<typeof specSchemas>;

/** The part of a schema node `explain` reads. */
interface FieldSchema extends SpecSchema {
  description?: string;
  type?: unknown;
  enum?: unknown[];
  default?: unknown;
  anyOf?: FieldSchema[];
  oneOf?: FieldSchema[];
  allOf?: FieldSchema[];
}

const KINDS: readonly ExplainKind[] = ['agent', 'provider', 'connection', 'apiKey', 'environment'];

export function explain(topic: string, kind: ExplainKind | undefined): Record<string, unknown> {
  const rule = BUILTIN_RULES.find((candidate) => candidate.id === topic);
  const planRule = PLAN_RULES.find((candidate) => candidate.id === topic);
  const found = rule ?? planRule;
  if (found) {
    return {
      rule: found.id,
      rationale: found.rationale,
      defaultSeverity: found.severity,
      docs: rule ? 'docs/policy.md#built-in-rules' : 'docs/policy.md#rules-over-the-plan',
      fix: [
        rule
          ? 'change the resource so that the rule no longer fires (the finding names the resource and the path)'
          : 'change the plan so that the rule no longer fires (the finding names the resource or the environment)',
        `or accept it on the resource with a reason: suppress: [{rule: ${found.id}, reason: ...}] (docs/policy.md#suppressing-a-finding)`,
        `or set its severity per environment in agentform.yaml: policy.rules.${found.id} (docs/policy.md#configuring-the-rules-agentformyaml)`,
      ],
    };
  }
  return explainField(topic, kind);
}

function explainField(topic: string, kind: ExplainKind | undefined): Record<string, unknown> {
  const segments = topic.split('.').filter((segment) => segment !== '');
  // "agent.limits.maxTurns" names its kind first; "limits.maxTurns" takes `kind` (default agent).
  const named = KINDS.find((candidate) => candidate.toLowerCase() === segments[0]?.toLowerCase());
  const fieldKind = kind ?? named ?? 'agent';
  const path = named !== undefined && kind === undefined ? segments.slice(1) : segments;
  const { root, spec } = specSchemas()[fieldKind] as { root: FieldSchema; spec: FieldSchema };
  let node: FieldSchema | undefined = spec;
  for (const segment of path) node = node === undefined ? undefined : childOf(node, segment, root);
  if (node === undefined || path.length === 0) {
    throw new UserError(
      `"${topic}" is neither a built-in policy rule nor a field of ${fieldKind}`,
      `rules: ${[...BUILTIN_RULES, ...PLAN_RULES].map((candidate) => candidate.id).join(', ')}; fields: a path such as limits.maxTurns, with kind one of ${KINDS.join(', ')}`,
    );
  }
  return {
    kind: fieldKind,
    field: path.join('.'),
    ...(node.description !== undefined ? { description: node.description } : {}),
    ...(node.type !== undefined ? { type: node.type } : {}),
    ...(node.enum !== undefined ? { enum: node.enum } : {}),
    ...(node.default !== undefined ? { default: node.default } : {}),
    docs: 'docs/configuration.md',
    schema: `agentform schema ${fieldKind === 'environment' ? 'agentform' : fieldKind.toLowerCase()}`,
  };
}

/** The schema of `segment` ("tools[2]" steps into the items) under `node`, through refs and alternatives. */
function childOf(node: FieldSchema, segment: string, root: FieldSchema): FieldSchema | undefined {
  const [, key, indexed] = /^([^[]*)((?:\[\d*\])*)$/.exec(segment) ?? [];
  if (key === undefined) return undefined;
  let child = key === '' ? node : propertyOf(node, key, root);
  for (let steps = (indexed ?? '').split('[').length - 1; child !== undefined && steps > 0; steps--) {
    child = resolveSchemaRef(child, root)?.items as FieldSchema | undefined;
  }
  return child === undefined ? undefined : (resolveSchemaRef(child, root) as FieldSchema);
}

function propertyOf(node: FieldSchema, key: string, root: FieldSchema): FieldSchema | undefined {
  const resolved = resolveSchemaRef(node, root) as FieldSchema | undefined;
  if (resolved === undefined) return undefined;
  const own = resolved.properties?.[key] as FieldSchema | undefined;
  if (own) return own;
  for (const alternative of [...(resolved.allOf ?? []), ...(resolved.anyOf ?? []), ...(resolved.oneOf ?? [])]) {
    const found = propertyOf(alternative, key, root);
    if (found) return found;
  }
  return typeof resolved.additionalProperties === 'object' ? (resolved.additionalProperties as FieldSchema) : undefined;
}
