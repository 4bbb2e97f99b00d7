// agents.*: versioned definitions. An upsert whose filled definition equals the latest version's
// returns that version unchanged (unless the profile versions every upsert); any difference makes
// version N+1. Images "bake" for
// services.bakeMs after a version is created (computed from createdAt, so no timer is needed and
// any process on the data dir agrees), then are `ready`, or `failed` for an invalid build step.
import type { AgentDefinition, AgentImage, AgentVersionWithSlug, PromotedFrom } from '../../model/api.js';
import { environmentOf, type HandlerContext } from '../context.js';
import { fillDefaults } from '../defaults.js';
import type { Db } from '../store/db.js';
import { writeTx } from '../store/db.js';
import { notFound } from '../service-error.js';
import { canonicalJson, newId, nowIso, parseJson, sha256Hex, yieldToEventLoop } from '../util.js';
import type { GroupHandlers } from './types.js';

interface VersionRow {
  agent_id: string;
  slug: string;
  version: number;
  definition: string;
  definition_hash: string;
  spec_hash: string;
  image_error: string | null;
  promoted_from: string | null;
  created_at: string;
}

const LIST_SLICE = 100;
const VERSION_COLUMNS = 'v.agent_id, a.slug, v.version, v.definition, v.definition_hash, v.spec_hash, v.image_error, v.promoted_from, v.created_at';

/** Why an image build step cannot work (the simulated builder rejects empty steps and `FAIL...`). */
export function invalidImageStep(definition: AgentDefinition): string | undefined {
  const steps = definition.sandbox?.image?.steps ?? [];
  const index = steps.findIndex((step) => step.trim() === '' || step.startsWith('FAIL'));
  if (index < 0) return undefined;
  return `sandbox.image.steps[${index}] failed: ${steps[index]!.trim() === '' ? 'empty step' : JSON.stringify(steps[index])}`;
}

function imageOf(row: VersionRow, bakeMs: number): AgentImage {
  const ref = `local/${row.slug}@sha256:${row.spec_hash.slice(0, 12)}`;
  const bakedAtMs = Date.parse(row.created_at) + bakeMs;
  if (Date.now() < bakedAtMs) return { status: 'baking', ref, specHash: row.spec_hash };
  if (row.image_error) return { status: 'failed', ref, specHash: row.spec_hash, error: row.image_error };
  return { status: 'ready', ref, specHash: row.spec_hash, bakedAt: new Date(bakedAtMs).toISOString() };
}

/** `definition`/`promotedFrom`: the row's, parsed, unless the caller holds them already. */
function toVersion(
  row: VersionRow,
  bakeMs: number,
  definition: AgentDefinition = parseJson(row.definition, {} as AgentDefinition),
  promotedFrom: PromotedFrom | null = parseJson<PromotedFrom | null>(row.promoted_from, null),
): AgentVersionWithSlug {
  return { agentId: row.agent_id, slug: row.slug, version: row.version, definition, createdAt: row.created_at, image: imageOf(row, bakeMs), promotedFrom };
}

function versionRow(db: Db, environmentId: string, slug: string, version?: number): VersionRow | undefined {
  const sql = `SELECT ${VERSION_COLUMNS} FROM agent_versions v JOIN agents a ON a.id = v.agent_id
    WHERE a.environment_id = ? AND a.slug = ? ${version === undefined ? '' : 'AND v.version = ?'} ORDER BY v.version DESC LIMIT 1`;
  const params: unknown[] = version === undefined ? [environmentId, slug] : [environmentId, slug, version];
  return db.prepare(sql).get(...params) as VersionRow | undefined;
}

/** The latest version of an agent, for sessions started by the simulator. */
export function latestVersion(db: Db, environmentId: string, slug: string): { agentId: string; version: number; definition: AgentDefinition } {
  const row = versionRow(db, environmentId, slug);
  if (!row) throw notFound(`agent ${slug}`);
  return { agentId: row.agent_id, version: row.version, definition: parseJson(row.definition, {} as AgentDefinition) };
}

function upsert(ctx: HandlerContext, slug: string, definition: AgentDefinition, promotedFrom: PromotedFrom | undefined): AgentVersionWithSlug {
  const environmentId = environmentOf(ctx);
  const filled = fillDefaults(definition, ctx.profile.defaults.agentDefinition);
  const definitionHash = sha256Hex(canonicalJson(filled));
  return writeTx(ctx.db, () => {
    const latest = versionRow(ctx.db, environmentId, slug);
    if (latest && latest.definition_hash === definitionHash && !ctx.profile.versionEveryUpsert) return toVersion(latest, ctx.services.bakeMs);
    let agentId = latest?.agent_id;
    if (!agentId) {
      const existing = ctx.db.prepare('SELECT id FROM agents WHERE environment_id = ? AND slug = ?').get(environmentId, slug) as { id: string } | undefined;
      agentId = existing?.id ?? newId('agt');
      if (!existing)
        ctx.db.prepare('INSERT INTO agents (id, environment_id, slug, created_at) VALUES (?, ?, ?, ?)').run(agentId, environmentId, slug, nowIso());
    }
    const row: VersionRow = {
      agent_id: agentId,
      slug,
      version: (latest?.version ?? 0) + 1,
      definition: JSON.stringify(filled),
      definition_hash: definitionHash,
      spec_hash: sha256Hex(canonicalJson(filled.sandbox?.image ?? {})),
      image_error: invalidImageStep(filled) ?? null,
      promoted_from: promotedFrom ? JSON.stringify(promotedFrom) : null,
      created_at: nowIso(),
    };
    ctx.db
      .prepare(
        `INSERT INTO agent_versions (agent_id, version, definition, definition_hash, spec_hash, image_error, promoted_from, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(row.agent_id, row.version, row.definition, row.definition_hash, row.spec_hash, row.image_error, row.promoted_from, row.created_at);
    // The version as stored, from the row just written rather than read back (and its definition
    // parsed again): the stored text is JSON.stringify(filled) of a body that came from JSON.
    return toVersion(row, ctx.services.bakeMs, filled, promotedFrom ?? null);
  });
}

export const agents: GroupHandlers<'agents'> = {
  'agents.upsert': (ctx, body) => {
    const { slug: _slug, ...version } = upsert(ctx, body.slug, body.definition, body.promotedFrom);
    return version;
  },
  'agents.get': (ctx, body) => {
    const row = versionRow(ctx.db, environmentOf(ctx), body.slug, body.version);
    if (!row) throw notFound(body.version === undefined ? `agent ${body.slug}` : `agent ${body.slug} version ${body.version}`);
    return toVersion(row, ctx.services.bakeMs);
  },
  'agents.list': async (ctx) => {
    // Reading and parsing every definition of a large environment takes a while: done in slices,
    // yielding between them, so small requests arriving meanwhile are answered in between. Which
    // versions to list is read first, in one small query; version rows never change, so reading
    // them later gives that same snapshot (less any agent deleted meanwhile, which is left out).
    const latest = ctx.db
      .prepare(
        `SELECT a.id AS agent_id, MAX(v.version) AS version FROM agents a JOIN agent_versions v ON v.agent_id = a.id
         WHERE a.environment_id = ? GROUP BY a.id ORDER BY a.slug`,
      )
      .all(environmentOf(ctx)) as Array<{ agent_id: string; version: number }>;
    const read = ctx.db.prepare(`SELECT ${VERSION_COLUMNS} FROM agent_versions v JOIN agents a ON a.id = v.agent_id WHERE v.agent_id = ? AND v.version = ?`);
    const versions: AgentVersionWithSlug[] = [];
    for (let i = 0; i < latest.length; i++) {
      if (i > 0 && i % LIST_SLICE === 0) await yieldToEventLoop();
      const row = read.get(latest[i]!.agent_id, latest[i]!.version) as VersionRow | undefined;
      if (row) versions.push(toVersion(row, ctx.services.bakeMs));
    }
    return versions;
  },
  'agents.delete': (ctx, body) =>
    writeTx(ctx.db, () => {
      const result = ctx.db.prepare('DELETE FROM agents WHERE environment_id = ? AND slug = ?').run(environmentOf(ctx), body.slug);
      if (result.changes === 0) throw notFound(`agent ${body.slug}`);
    }),
};
