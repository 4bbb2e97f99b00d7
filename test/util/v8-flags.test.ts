// The V8 flags a CLI run changes, and Node's built-ins loaded all the same from Node's code cache
// (src/util/v8-flags.ts). V8's flags are the whole process's: each case runs the built module in a
// fresh process, with --expose-internals for Node's own account of how it compiled its built-ins.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTunedV8, TUNED_V8 } from '../../src/util/v8-flags.js';

const BUILT = join(import.meta.dirname, '..', '..', 'dist', 'src', 'util', 'v8-flags.js');

/** Runs `body` (an ES module's code, `flags` being the built module) in a fresh node; returns what it prints as JSON. */
function inFreshProcess(body: string): unknown {
  const script = `
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const flags = await import(${JSON.stringify(BUILT)});
    const { internalBinding } = require('internal/test/binding');
    const fromCache = (name) => {
      const usage = internalBinding('builtins').getCacheUsage();
      return usage.compiledWithCache.has(name) ? true : usage.compiledWithoutCache.has(name) ? false : undefined;
    };
    ${body}`;
  return JSON.parse(
    execFileSync(process.execPath, ['--expose-internals', '--no-warnings', '--input-type=module', '-e', script], { encoding: 'utf8' }),
  ) as unknown;
}

describe('v8-flags', () => {
  it('loads a built-in from Node’s code cache after the flags changed, and leaves them changed', () => {
    const result = inFreshProcess(`
      flags.setV8Flag('turbofan', false);
      flags.setV8Flag('semi-space-growth-factor', 1);
      flags.setV8Flag('interrupt-budget', 1081344);
      // The check can fail: before the loader is in place, a built-in compiles from source.
      require('node:zlib');
      flags.loadBuiltinsUnderV8Defaults();
      require('node:http2');
      require('dgram');
      require('node:zlib');
      // TurboFan is off again once the window closed: a function made hot is not optimised.
      const { setFlagsFromString } = require('node:v8');
      setFlagsFromString('--allow-natives-syntax');
      const hot = new Function('x', 'return x + 1');
      new Function('f', '%PrepareFunctionForOptimization(f)')(hot);
      hot(1); hot(2);
      new Function('f', '%OptimizeFunctionOnNextCall(f)')(hot);
      hot(3);
      const optimised = (new Function('f', 'return %GetOptimizationStatus(f)')(hot) & (1 << 4)) !== 0;
      console.log(JSON.stringify({ zlib: fromCache('zlib'), http2: fromCache('http2'), dgram: fromCache('dgram'), changed: flags.changedV8Flags(), optimised }));`);
    expect(result).toEqual({
      zlib: false,
      http2: true,
      dgram: true,
      changed: ['--no-turbofan', '--semi-space-growth-factor=1', '--interrupt-budget=1081344'],
      optimised: false,
    });
  });

  it('counts a flag set back to its default as unchanged', () => {
    const result = inFreshProcess(`
      flags.setV8Flag('semi-space-growth-factor', 1);
      flags.setV8Flag('sparkplug', false);
      flags.setV8Flag('semi-space-growth-factor', 2);
      const changedBefore = flags.changedV8Flags();
      flags.setV8Flag('sparkplug', true);
      flags.loadBuiltinsUnderV8Defaults();
      require('node:http2');
      console.log(JSON.stringify({ changedBefore, changedAfter: flags.changedV8Flags(), http2: fromCache('http2') }));`);
    expect(result).toEqual({ changedBefore: ['--no-sparkplug'], changedAfter: [], http2: true });
  });

  it('runs what it wraps under the defaults, and returns what it returns', () => {
    const result = inFreshProcess(`
      flags.setV8Flag('turbofan', false);
      const value = flags.underV8Defaults(() => { require('node:http2'); return 42; });
      let thrown;
      try { flags.underV8Defaults(() => { throw new Error('boom'); }); } catch (error) { thrown = error.message; }
      console.log(JSON.stringify({ value, thrown, http2: fromCache('http2'), changed: flags.changedV8Flags() }));`);
    expect(result).toEqual({ value: 42, thrown: 'boom', http2: true, changed: ['--no-turbofan'] });
  });

  it('sets flags only on the V8 line they were tuned on, Node 20’s (Node 22’s and 24’s refuse --interrupt-budget)', () => {
    expect(TUNED_V8).toBe('11.3');
    expect(['11.3.244.8-node.38', '11.3'].map((version) => isTunedV8(version))).toEqual([true, true]);
    expect(['12.4.254.21-node.33', '13.6.233.17-node.53', '11.30.1', '1.3'].map((version) => isTunedV8(version))).toEqual([false, false, false, false]);
  });
});
