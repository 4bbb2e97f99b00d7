// The apply console (src/cli/commands/apply/console.ts): what reaches stdout and stderr, in which
// order, whether the plan text comes before the writes or while they are on the wire.
import { describe, expect, it } from 'vitest';
import type { ApplyEvent, ApplyResult } from '../../../../src/apply/events.js';
import { ApplyConsole, type ApplyConsoleOptions } from '../../../../src/cli/commands/apply/console.js';
import type { ConsoleStreams } from '../../../../src/cli/commands/apply/write-log.js';
import type { ResourceAddress } from '../../../../src/model/resources.js';
import { renderPlanText } from '../../../../src/render/text.js';
import { monotonicMs } from '../../../../src/util/clock.js';
import { samplePlan } from '../../../render/fixtures.js';

/** Everything written, in order, each piece tagged with its stream. */
function recordingStreams(terminal: boolean): { streams: ConsoleStreams; written: Array<[stream: 'out' | 'err', text: string]> } {
  const written: Array<['out' | 'err', string]> = [];
  return {
    written,
    streams: {
      stdout: { write: (text) => written.push(['out', text]) },
      stderr: { write: (text) => written.push(['err', text]), isTTY: terminal, columns: 80 },
    },
  };
}

const START: ApplyEvent = { type: 'start', address: 'agent/support', action: 'update' };
const RESULT: ApplyResult = { done: [], failed: [], skipped: [], notStarted: [], counts: { added: 0, changed: 0, adopted: 0, replaced: 0, destroyed: 0 } };

/** Writes that report one start at once, then finish on a later turn. */
const oneWrite = (hooks: { onEvent: (event: ApplyEvent) => void }) => {
  hooks.onEvent(START);
  return new Promise<ApplyResult>((resolve) => setTimeout(() => resolve({ ...RESULT }), 5));
};

function applyConsole(options: Partial<ApplyConsoleOptions>, terminal = false) {
  const recorded = recordingStreams(terminal);
  const io = new ApplyConsole(samplePlan(), { json: false, color: false, asks: false, env: {}, streams: recorded.streams, ...options });
  return { io, ...recorded };
}

const planText = `${renderPlanText(samplePlan(), { color: false })}\n`;
const joined = (written: Array<[string, string]>, stream?: string) =>
  written
    .filter(([on]) => stream === undefined || on === stream)
    .map(([, text]) => text)
    .join('');

describe('ApplyConsole', () => {
  it('without a question, prints the plan once the writes started, and what was said before it after it', async () => {
    const { io, written } = applyConsole({ asks: false });
    io.showPlan();
    io.say('a note from the lock gate');
    expect(written).toEqual([]);
    await io.beforeWrites(async () => undefined);
    expect(written).toEqual([]);
    await io.write(oneWrite);
    expect(joined(written)).toBe(`${planText}a note from the lock gate\nagent/support: Updating...\n`);
  });

  it('with a question, prints the plan at once and says things as they come', () => {
    const { io, written } = applyConsole({ asks: true });
    io.showPlan();
    io.say('a note');
    expect(written).toEqual([
      ['out', planText],
      ['err', 'a note\n'],
    ]);
  });

  it('when a gate refuses before any write, prints the pending plan, then what was said, then fails', async () => {
    const { io, written } = applyConsole({ asks: false });
    io.say('a note');
    await expect(io.beforeWrites(() => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(written).toEqual([
      ['out', planText],
      ['err', 'a note\n'],
    ]);
  });

  it.each([
    ['a terminal', true, true, {}],
    ['no terminal', false, false, {}],
    ['a terminal in CI', false, true, { CI: 'true' }],
  ])('on %s, the status line is drawn: %s', async (_, drawn, terminal, env) => {
    const { io, written } = applyConsole({ asks: true, env }, terminal);
    await io.write(oneWrite);
    expect(joined(written, 'err').includes('\r\x1b[2K')).toBe(drawn);
    expect(joined(written, 'err').includes('1 in flight')).toBe(drawn);
    expect(joined(written, 'out')).toContain('agent/support: Updating...');
  });

  it('with --json, prints no plan text, each event as JSON and the summary, with the total time, as JSON', async () => {
    const { io, written } = applyConsole({ json: true, startedAt: monotonicMs() - 2300, target: 'https://api.example.test' });
    io.showPlan();
    const result = await io.write(oneWrite);
    io.report(result);
    const [header, event, summary, end] = joined(written).split('\n');
    expect(JSON.parse(header as string)).toEqual({
      type: 'plan',
      environment: samplePlan().environment,
      target: 'https://api.example.test',
      summary: samplePlan().summary,
    });
    expect([event, end]).toEqual([JSON.stringify(START), '']);
    const { ms, ...rest } = JSON.parse(summary as string);
    expect(rest).toEqual({ type: 'summary', ...RESULT });
    expect(ms).toBeGreaterThanOrEqual(2300);
    expect(ms).toBeLessThan(60_000);
  });

  it('with --json, opens with the scope plan --json has (excludes, owns, what is set aside)', () => {
    const scope = {
      excludes: ['agent/team-b-*'],
      owns: ['agent/team-*'],
      notOwned: 2,
      setAside: [{ address: 'agent/team-b-bot' as ResourceAddress, as: 'excluded' as const, reason: '--exclude agent/team-b-*' }],
    };
    const recorded = recordingStreams(false);
    const io = new ApplyConsole({ ...samplePlan(), scope }, { json: true, color: false, asks: false, env: {}, streams: recorded.streams });
    io.showPlan();
    expect(JSON.parse(joined(recorded.written, 'out'))).toMatchObject({ type: 'plan', scope });
  });

  it('leaves the wait at the confirmation question out of the total time', async () => {
    const answerAfter = (ms: number) => () => new Promise<void>((resolve) => setTimeout(resolve, ms));
    const { io, written } = applyConsole({ json: true, asks: true, ask: answerAfter(400), startedAt: monotonicMs() - 100 });
    await io.confirm('Apply? ');
    io.report({ ...RESULT });
    const { ms } = JSON.parse(joined(written, 'out').trim()) as { ms: number };
    expect(ms).toBeGreaterThanOrEqual(100);
    expect(ms).toBeLessThan(400);
  });

  it.each([
    ['complete', RESULT, /^Apply complete! Resources: 0 added, 0 changed, 0 replaced, 0 destroyed\. Total time: 2\.\ds\.$/m],
    [
      'incomplete',
      { ...RESULT, notStarted: [{ address: 'agent/support', action: 'update' }] },
      /^Apply incomplete\. Resources: .* destroyed\. Total time: 2\.\ds\.$/m,
    ],
  ] as const)('the %s summary states the total time since the run started', (_, result, line) => {
    const { io, written } = applyConsole({ startedAt: monotonicMs() - 2300 });
    io.report(result as ApplyResult);
    expect(joined(written, 'out')).toMatch(line);
  });
});

describe('a failed log line, written a line at a time', () => {
  // Regression: a throwing stdout escaped the event handler instead of stopping new writes and
  // being reported.
  it.each([
    ['on a terminal', {}, true],
    ['off a terminal', {}, false],
  ] as Array<[string, NodeJS.ProcessEnv, boolean]>)('%s: stops the writes and names the failure', async (_name, env, terminal) => {
    const recorded = recordingStreams(terminal);
    const stdout = {
      write: (text: string) =>
        text.includes('Updating')
          ? (() => {
              throw new Error('stdout is gone');
            })()
          : recorded.streams.stdout.write(text),
    };
    const io = new ApplyConsole(samplePlan(), { json: false, color: false, asks: true, env, streams: { ...recorded.streams, stdout } });
    io.showPlan();
    let stopped = false;
    const result = await io.write((hooks) => {
      hooks.onEvent(START);
      stopped = hooks.shouldStop();
      return Promise.resolve({ ...RESULT });
    });
    expect(stopped).toBe(true);
    expect(result.stoppedBy).toBe('printing the log failed (stdout is gone), so nothing more was started');
  });
});
