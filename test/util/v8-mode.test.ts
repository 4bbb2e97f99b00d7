// Which V8 settings a CLI run picks: lean (no TurboFan) only for a project known to be small, full
// otherwise; and that each mode's flags are really in force in the process that chose them.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseV8Mode, LEAN_MAX_YAML_BYTES, projectYamlBytes } from '../../src/util/v8-mode.js';

let root: string;
const at = (...parts: string[]) => join(root, ...parts);
function file(path: string, bytes: number): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, 'x'.repeat(bytes));
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'v8-mode-'));
  // small: 1,000 bytes of YAML in all, whatever else lies around.
  file(at('small', 'agentform.yaml'), 100);
  file(at('small', 'agents', 'a.yaml'), 400);
  file(at('small', 'agents', 'b.yml'), 500);
  file(at('small', 'agents', 'notes.md'), LEAN_MAX_YAML_BYTES * 2);
  file(at('small', '.agentform', 'cache', 'big.yaml'), LEAN_MAX_YAML_BYTES * 2);
  file(at('small', 'node_modules', 'pkg', 'big.yaml'), LEAN_MAX_YAML_BYTES * 2);
  // large: more YAML than the lean limit, spread over files.
  file(at('large', 'agentform.yml'), 10);
  for (let index = 0; index < 5; index++) file(at('large', 'agents', `part-${index}.yaml`), LEAN_MAX_YAML_BYTES / 4);
  // exactly at the limit: still lean.
  file(at('limit', 'agentform.yaml'), LEAN_MAX_YAML_BYTES);
  // many entries: not walked to the end.
  file(at('wide', 'agentform.yaml'), 10);
  for (let index = 0; index < 5_100; index++) writeFileSync(at('wide', `f${index}.txt`), '');
  // a link to the large tree is not followed (as the project loader does not follow it).
  file(at('linked', 'agentform.yaml'), 10);
  symlinkSync(at('large', 'agents'), at('linked', 'agents'));
  mkdirSync(at('not-a-project'));
  file(at('not-a-project', 'big.yaml'), LEAN_MAX_YAML_BYTES * 2);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('projectYamlBytes', () => {
  it.each([
    ['small', 1_000],
    ['limit', LEAN_MAX_YAML_BYTES],
    ['wide', Infinity],
    ['linked', 10],
  ])('%s: %d bytes', (dir, bytes) => {
    expect(projectYamlBytes(at(dir), LEAN_MAX_YAML_BYTES)).toBe(bytes);
  });

  it('stops counting once past the limit', () => {
    const bytes = projectYamlBytes(at('large'), LEAN_MAX_YAML_BYTES) ?? 0;
    expect(bytes).toBeGreaterThan(LEAN_MAX_YAML_BYTES);
    expect(bytes).toBeLessThan(LEAN_MAX_YAML_BYTES * 1.25 + 11);
  });

  it.each([['not-a-project'], ['missing'], ['small/agentform.yaml']])('%s: not a project', (dir) => {
    expect(projectYamlBytes(at(dir), LEAN_MAX_YAML_BYTES)).toBeUndefined();
  });
});

describe('chooseV8Mode', () => {
  const cases: Array<[string, () => string[], NodeJS.ProcessEnv, () => string, string, RegExp]> = [
    ['a small project as the argument', () => ['plan', at('small'), '-e', 'dev'], {}, () => root, 'lean', /1 KB of YAML/],
    ['a large project as the argument', () => ['apply', at('large'), '--auto-approve'], {}, () => root, 'full', /over 96 KB/],
    ['the project at the limit', () => ['validate', at('limit')], {}, () => root, 'lean', / 96 KB of YAML/],
    ['a tree too wide to walk', () => ['plan', at('wide')], {}, () => root, 'full', /over 96 KB/],
    ['-C DIR', () => ['plan', '-C', at('large')], {}, () => at('small'), 'full', /over/],
    ['--dir DIR', () => ['plan', '--dir', at('small')], {}, () => at('large'), 'lean', /1 KB/],
    ['--dir=DIR', () => ['plan', `--dir=${at('small')}`], {}, () => at('large'), 'lean', /1 KB/],
    ['option values that are not projects are passed over', () => ['plan', '-e', 'dev', at('small')], {}, () => at('large'), 'lean', /1 KB/],
    ['no argument: the current directory', () => ['plan'], {}, () => at('small'), 'lean', /1 KB/],
    ['no argument, a large current directory', () => ['plan'], {}, () => at('large'), 'full', /over/],
    ['no project anywhere', () => ['whoami'], {}, () => at('not-a-project'), 'full', /no project directory/],
    ['a saved plan (not a directory)', () => ['apply', at('small', 'agentform.yaml')], {}, () => at('not-a-project'), 'full', /no project/],
    ['forced lean', () => ['plan', at('large')], { AGENTFORM_V8_MODE: 'lean' }, () => root, 'lean', /AGENTFORM_V8_MODE/],
    ['forced full', () => ['plan', at('small')], { AGENTFORM_V8_MODE: ' full ' }, () => root, 'full', /AGENTFORM_V8_MODE/],
    ['an unknown forced mode is ignored', () => ['plan', at('small')], { AGENTFORM_V8_MODE: 'fast' }, () => root, 'lean', /1 KB/],
  ];
  it.each(cases)('%s', (_name, args, env, cwd, mode, reason) => {
    const choice = chooseV8Mode(args(), env, cwd());
    expect(choice.mode).toBe(mode);
    expect(choice.reason).toMatch(reason);
  });
});

// The built module, in a fresh process: the flags apply to the whole process, and only at start.
describe('v8-tuning applies the mode it chose', () => {
  const BUILT = join(import.meta.dirname, '..', '..', 'dist', 'src', 'util', 'v8-tuning.js');
  /** Whether a hot function ends up optimised by TurboFan, in a process started under `mode`. */
  function optimisedUnder(mode: string): boolean {
    const script = `
      const { v8Choice } = await import(${JSON.stringify(BUILT)});
      const { setFlagsFromString } = await import('node:v8');
      setFlagsFromString('--allow-natives-syntax');
      const hot = new Function('x', 'return x * 2 + 1');
      const status = new Function('f', 'return %GetOptimizationStatus(f)');
      const prepare = new Function('f', '%PrepareFunctionForOptimization(f)');
      const optimiseNext = new Function('f', '%OptimizeFunctionOnNextCall(f)');
      prepare(hot); hot(1); hot(2); optimiseNext(hot); hot(3);
      const OPTIMISED = 1 << 4; // V8's OptimizationStatus::kOptimized
      console.log(JSON.stringify({ mode: v8Choice.mode, optimised: (status(hot) & OPTIMISED) !== 0 }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, AGENTFORM_V8_MODE: mode } });
    const result = JSON.parse(out) as { mode: string; optimised: boolean };
    expect(result.mode).toBe(mode);
    return result.optimised;
  }

  it('lean: TurboFan never optimises', () => {
    expect(optimisedUnder('lean')).toBe(false);
  });

  it('full: TurboFan optimises as usual', () => {
    expect(optimisedUnder('full')).toBe(true);
  });
});
