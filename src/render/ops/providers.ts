// Table for `agentform providers models`.
import type { Model } from '../../model/api.js';
import { formatCount, formatTable, orNone, plural } from './format.js';

export function renderModels(provider: string, models: readonly Model[]): string {
  const heading = `Provider ${provider} offers ${plural(models.length, 'model')}.`;
  if (models.length === 0) return heading;
  const rows = [...models]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((model) => [model.id, orNone(model.ownedBy), formatCount(model.contextWindow), formatCount(model.maxOutputTokens)]);
  return `${heading}\n\n${formatTable([{ header: 'MODEL' }, { header: 'OWNED BY' }, { header: 'CONTEXT WINDOW', align: 'right' }, { header: 'MAX OUTPUT', align: 'right' }], rows)}`;
}
