// `npm run build` (and the tests' global setup): TypeScript to dist/, then the CLI bundled into
// dist/cli/ (what `agentform` runs), each layout with its own precompiled validators.
// The bundle is what users get: one entry file and a few lazily loaded chunks instead of ~90 ES
// modules, whose resolving and loading was a third of a small plan's time.
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const repo = fileURLToPath(new URL('..', import.meta.url));
const dist = join(repo, 'dist');
const bundleDir = join(dist, 'cli');
const node = (...args) => execFileSync(process.execPath, args, { cwd: repo, stdio: 'inherit' });

node(join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(repo, 'tsconfig.json'));
// For the tests and benchmarks that import dist/src directly.
node(join(dist, 'src', 'config', 'write-precompiled-schemas.js'));

/**
 * commander requires node:child_process when it loads, for executable subcommands (agentform has
 * none): ~6 ms of every run. It is required on first use instead.
 */
const lazyChildProcess = {
  name: 'agentform:lazy-child-process',
  transform(code, id) {
    if (!id.replaceAll('\\', '/').endsWith('node_modules/commander/lib/command.js')) return null;
    const eager = "const childProcess = require('node:child_process');";
    if (!code.includes(eager)) {
      this.warn('commander no longer requires node:child_process as expected: it now loads eagerly');
      return null;
    }
    return code.replace(eager, "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };");
  },
};

rmSync(bundleDir, { recursive: true, force: true });
const bundle = await rolldown({
  input: {
    agentform: join(dist, 'src', 'cli', 'main.js'),
    // Bundled too, so the validators it writes come from the very code the bundle checks them with.
    'write-precompiled-schemas': join(dist, 'src', 'config', 'write-precompiled-schemas.js'),
    'write-code-cache': join(dist, 'src', 'config', 'write-code-cache.js'),
  },
  platform: 'node',
  // The native SQLite binding is loaded from node_modules (and only by the local control plane).
  external: [/^node:/, 'better-sqlite3'],
  plugins: [lazyChildProcess],
  logLevel: 'warn',
});
// One flat folder: modules that find files beside themselves (the precompiled validators) look in it.
await bundle.write({ dir: bundleDir, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' });
await bundle.close();
node(join(bundleDir, 'write-precompiled-schemas.js'));
node(join(bundleDir, 'write-code-cache.js'), join(repo, 'examples'));
chmodSync(join(bundleDir, 'agentform.js'), 0o755);
// tsc's entry (the bundle's input, above) becomes a forwarder to the bundle: whatever still runs the
// old path (the peer benchmark in ../shared/bench, scripts written before the bundle) runs the CLI
// users get, not ~90 unbundled modules that start ~40 ms slower.
const tscEntry = join(dist, 'src', 'cli', 'main.js');
writeFileSync(tscEntry, "#!/usr/bin/env node\n// Written by scripts/build.mjs: the CLI is the bundle.\nimport '../../cli/agentform.js';\n");
chmodSync(tscEntry, 0o755);
