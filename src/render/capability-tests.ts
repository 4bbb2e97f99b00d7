// Capability test results (docs/capability-tests.md) as `agentform test` prints them (text, JSON,
// JUnit XML) and as the plan shows them (a short section). Names and messages come from the
// project's files: shown with control characters made visible, escaped for XML and Markdown.
import { formatLocation } from '../errors.js';
import { type CapabilityTestReport, type CapabilityTestResult, countResults, type DefinitionStep } from '../model/capability-test.js';
import { fenced } from './markdown.js';
import { PLAIN, type Palette } from './palette.js';
import { visible } from './visible.js';

/** Whether the result's chain shows the capability granted (it exists), or why it does not. */
function chainTitle(result: CapabilityTestResult): string {
  if (result.status === 'error') return 'looked at';
  const exists = (result.assertion.expect === 'can') === (result.status === 'pass');
  return exists ? 'granted by' : 'not granted';
}

function stepLine(step: DefinitionStep): string {
  return step.location ? `${visible(step.what)}  (${formatLocation(step.location)})` : visible(step.what);
}

function label(result: CapabilityTestResult): string {
  return `[${visible(result.environment)}] ${visible(result.assertion.name)}`;
}

export function summaryLine(report: CapabilityTestReport): string {
  const counts = countResults(report);
  const skipped = report.skipped > 0 ? `, ${report.skipped} skipped` : '';
  return `${counts.pass} passed, ${counts.fail} failed, ${counts.error} ${counts.error === 1 ? 'error' : 'errors'}${skipped}`;
}

/** `agentform test`: every result, a failure or error with its reason and chain of definitions. */
export function renderCapabilityTestsText(report: CapabilityTestReport, files: number, palette: Palette = PLAIN): string {
  const lines: string[] = [];
  for (const result of report.results) {
    const where = formatLocation(result.assertion.location);
    if (result.status === 'pass') {
      lines.push(`${palette.add('pass')}  ${label(result)}  ${palette.dim(where)}`);
      continue;
    }
    lines.push(`${palette.remove(result.status === 'fail' ? 'FAIL' : 'ERROR')}  ${label(result)}`);
    lines.push(`      ${where}: ${visible(result.message)}`);
    if (result.chain.length > 0) {
      lines.push(`      ${chainTitle(result)}:`);
      for (const step of result.chain) lines.push(`        ${stepLine(step)}`);
    }
  }
  const environments = report.environments.length;
  lines.push(
    '',
    `${palette.bold('Capability tests:')} ${summaryLine(report)} (${files} test ${files === 1 ? 'file' : 'files'}, ${environments} ${environments === 1 ? 'environment' : 'environments'}).`,
  );
  return lines.join('\n');
}

/** The machine-readable report (`test --json`, and `capabilityTests` in the plan's JSON). */
export function capabilityTestsToJson(report: CapabilityTestReport): Record<string, unknown> {
  const counts = countResults(report);
  return {
    environments: report.environments,
    summary: { passed: counts.pass, failed: counts.fail, errors: counts.error, skipped: report.skipped },
    results: report.results.map((result) => ({
      environment: result.environment,
      name: result.assertion.name,
      location: formatLocation(result.assertion.location),
      agent: result.assertion.agent,
      [result.assertion.expect]: result.assertion.tool,
      ...(result.assertion.withDecision !== undefined ? { withDecision: result.assertion.withDecision } : {}),
      ...(result.assertion.as !== undefined ? { as: result.assertion.as } : {}),
      status: result.status,
      message: result.message,
      agents: result.agents,
      chain: result.chain.map((step) => ({ what: step.what, ...(step.location ? { location: formatLocation(step.location) } : {}) })),
    })),
  };
}

// XML 1.0 allows tab, newline and carriage return among the controls; the others cannot be written
// at all, even escaped, so they are shown as \uXXXX like everywhere else.
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

function xml(text: string): string {
  return text
    .replace(NOT_XML, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** JUnit XML: one testsuite per environment, one testcase per assertion checked there. */
export function renderCapabilityTestsJunit(report: CapabilityTestReport): string {
  const all = countResults(report);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="agentform test" tests="${report.results.length}" failures="${all.fail}" errors="${all.error}">`,
  ];
  for (const environment of report.environments) {
    const results = report.results.filter((result) => result.environment === environment);
    const failures = results.filter((result) => result.status === 'fail').length;
    const errors = results.filter((result) => result.status === 'error').length;
    lines.push(`  <testsuite name="${xml(environment)}" tests="${results.length}" failures="${failures}" errors="${errors}">`);
    for (const result of results) {
      const { location } = result.assertion;
      const attributes = `classname="${xml(`${environment}.${location.file}`)}" name="${xml(result.assertion.name)}" file="${xml(location.file)}" line="${location.line}"`;
      if (result.status === 'pass') {
        lines.push(`    <testcase ${attributes}/>`);
        continue;
      }
      const element = result.status === 'fail' ? 'failure' : 'error';
      const detail = [
        `${chainTitle(result)}:`,
        ...result.chain.map((step) => `  ${step.location ? `${step.what}  (${formatLocation(step.location)})` : step.what}`),
      ].join('\n');
      lines.push(`    <testcase ${attributes}>`);
      lines.push(`      <${element} message="${xml(`${formatLocation(location)}: ${result.message}`)}" type="${element}">${xml(detail)}</${element}>`);
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}

function failures(report: CapabilityTestReport): CapabilityTestResult[] {
  return report.results.filter((result) => result.status !== 'pass');
}

/** The plan's text section: the counts, then each failure in a line. */
export function renderCapabilityTestsSection(report: CapabilityTestReport, palette: Palette = PLAIN): string {
  const lines = [`${palette.bold('Capability tests:')} ${summaryLine(report)}${failures(report).length > 0 ? ' (agentform test shows why)' : ''}`];
  for (const result of failures(report))
    lines.push(
      `  ${palette.remove(result.status === 'fail' ? 'FAIL' : 'ERROR')} ${formatLocation(result.assertion.location)} ${label(result)}: ${visible(result.message)}`,
    );
  return lines.join('\n');
}

/** The plan's Markdown section (the pull-request comment). */
export function renderCapabilityTestsMarkdown(report: CapabilityTestReport): string {
  const failed = failures(report);
  const body =
    failed.length > 0
      ? `\n\n${fenced(failed.map((result) => `${result.status.toUpperCase()} ${formatLocation(result.assertion.location)} ${label(result)}: ${visible(result.message)}`).join('\n'), 'text')}`
      : '';
  return `### Capability tests\n\n${summaryLine(report)}.${body}\n`;
}
