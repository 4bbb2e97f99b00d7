// Where the plan's field changes of an agent come from when a template gave them: `source` is the
// template's file:line:col, so a changed template shows, under each agent it changes, the line that
// changed it. Values an agent writes itself (or its overlay) need no pointer: they are in its file.
import { environmentsOf, type Project } from '../config/index.js';
import type { PathSegment } from '../config/problems.js';
import { specLayer } from '../config/templates.js';
import type { Plan } from '../model/resources.js';

/** A field path of a plan (`model.model`, `tools[2].name`, `byTool["a.b"]`) as segments. */
export function fieldSegments(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  const pattern = /([^.[\]]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (const match of path.matchAll(pattern)) {
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else if (match[3] !== undefined) segments.push(JSON.parse(match[3]) as string);
  }
  return segments;
}

export function markTemplateSources(plan: Plan, project: Project, environment: string): void {
  // An agent may be declared once per set of environments, each extending its own template: only
  // the declaration of this environment says where its values come from.
  const documents = new Map<string, Project['documents'][number]>();
  for (const document of project.documents)
    if (document.kind === 'Agent' && document.inherited && environmentsOf(document, project).includes(environment)) documents.set(document.name, document);
  if (documents.size === 0) return;
  for (const change of plan.changes) {
    const document = change.kind === 'agent' ? documents.get(change.name) : undefined;
    if (!document) continue;
    for (const field of change.fields) {
      const segments = fieldSegments(field.path);
      const layer = specLayer(document, environment, segments);
      if (layer.source === document.source) continue;
      const at = layer.source.locate(layer.path);
      field.source = `${at.file}:${at.line}:${at.col}`;
    }
  }
}
