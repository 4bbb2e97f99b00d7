// Output of `agentform org` and `agentform env get`.
import type { Environment, Organization } from '../../model/api.js';
import { formatFields, formatTime } from './format.js';

export function renderOrganization(organization: Organization): string {
  return formatFields([
    ['Organization', organization.name],
    ['Slug', organization.slug],
    ['Id', organization.id],
    ['Identity provider org', organization.idpOrganizationId ?? undefined],
    ['Created', organization.createdAt ? formatTime(organization.createdAt) : undefined],
    ['Updated', organization.updatedAt ? formatTime(organization.updatedAt) : undefined],
  ]);
}

function days(value: number | undefined): string | undefined {
  return value === undefined ? undefined : `${value} day${value === 1 ? '' : 's'}`;
}

export function renderEnvironment(environment: Environment): string {
  const spend = environment.spend;
  const retention = environment.retention;
  return formatFields([
    ['Environment', environment.slug],
    ['Name', environment.name],
    ['Id', environment.id],
    ['Organization', environment.organizationId],
    ['Kind', environment.kind],
    ['Group', environment.group],
    ['Created', environment.createdAt ? formatTime(environment.createdAt) : undefined],
    ['Updated', environment.updatedAt ? formatTime(environment.updatedAt) : undefined],
    ['Expires', environment.expiresAt ? formatTime(environment.expiresAt) : undefined],
    ['Archived', environment.archivedAt ? formatTime(environment.archivedAt) : undefined],
    ['Tokens per month', spend?.tokensPerMonth?.toString()],
    ['Agent minutes per month', spend?.agentMinutesPerMonth?.toString()],
    ['Daily USD', spend?.dailyUsd === undefined ? undefined : `$${spend.dailyUsd}`],
    ['Session events kept', days(retention?.sessionEventsDays)],
    ['Delivered hooks kept', days(retention?.deliveredHooksDays)],
    ['Dead hooks kept', days(retention?.deadHooksDays)],
    ['Spans kept', days(retention?.spansDays)],
    ['Usage rollups kept', days(retention?.usageRollupDays)],
  ]);
}
