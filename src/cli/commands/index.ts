// The command list. Each module exports `register(program)`, which only declares options; the
// command's heavy modules are imported inside its action.
import type { Command } from 'commander';
import { register as apply } from './apply.js';
import { register as graph } from './graph.js';
import { register as plan } from './plan.js';
import { register as schema } from './schema.js';
import { register as server } from './server.js';
import { register as validate } from './validate.js';
import { register as whoami } from './whoami.js';
import { register as hooks } from './hooks.js';
import { register as sessions } from './sessions.js';
import { register as usage } from './usage.js';
import { register as sandboxes } from './sandboxes.js';
import { register as connections } from './connections.js';
import { register as providers } from './providers.js';
import { register as keys } from './keys.js';
import { register as secrets } from './secrets.js';
import { register as org } from './org.js';
import { register as env } from './env.js';
import { register as exportCommand } from './export.js';
import { register as diffEnvs } from './diff-envs.js';
import { register as promote } from './promote.js';
import { register as history } from './history.js';
import { register as rollback } from './rollback.js';
import { register as init } from './init.js';
import { register as lock } from './lock/index.js';
import { register as check } from './check/index.js';

export const COMMANDS: Array<(program: Command) => void> = [init, plan, apply, graph, validate, check, schema, whoami, hooks, sessions, usage, sandboxes, connections, providers, keys, secrets, org, env, server, exportCommand, diffEnvs, promote, history, rollback, lock];
