// The one registry through which every command starts a local control plane (`url: local`): one
// plane per data directory, shared by every connection that holds it, closed by the last release.
// A promotion reads another local environment while the target's connection is open, and two
// servers must never share one store. The registry is an object a command run owns and passes
// along, not module state: two runs in one process (tests) never see each other's planes.
import type { LocalControlPlane } from '../server/embedded.js';
import type { Variables } from './resolve.js';

/** What a connection needs of a running plane: its URL, its keys (never printed), and closing it. */
export type LocalPlane = Pick<LocalControlPlane, 'url' | 'tokens' | 'close'>;

export interface LocalEnvironmentSpec {
  slug: string;
  /** Given to a new environment (an environment's kind cannot change later). */
  kind?: string;
}

export interface HeldPlane {
  plane: LocalPlane;
  release(): Promise<void>;
}

/** Starts a plane; injected in unit tests so they run without a server. */
export type PlaneStarter = (dataDir: string, environments: LocalEnvironmentSpec[], env: Variables) => Promise<LocalPlane>;

const startEmbedded: PlaneStarter = async (dataDir, environments, env) => {
  // Imported on use: commands that never go local do not load the server.
  const [{ startLocalControlPlane, LOCAL_URL_DURABILITY }, { serverProfileFromEnv }] = await Promise.all([
    import('../server/embedded.js'),
    import('../server/profiles.js'),
  ]);
  // durability normal: see LOCAL_URL_DURABILITY.
  return startLocalControlPlane({ dataDir, environments, profile: serverProfileFromEnv(env), durability: LOCAL_URL_DURABILITY });
};

export class LocalPlanes {
  private readonly planes = new Map<string, { plane: Promise<LocalPlane>; users: number }>();

  constructor(private readonly start: PlaneStarter = startEmbedded) {}

  /** The plane over `dataDir`, started with `environments` unless one is already running there. */
  async acquire(dataDir: string, environments: LocalEnvironmentSpec[], env: Variables): Promise<HeldPlane> {
    let entry = this.planes.get(dataDir);
    if (!entry) {
      const plane = this.start(dataDir, environments, env);
      entry = { plane, users: 0 };
      this.planes.set(dataDir, entry);
      plane.catch(() => this.planes.delete(dataDir));
    }
    entry.users += 1;
    const shared = entry;
    let plane: LocalPlane;
    try {
      plane = await shared.plane;
    } catch (error) {
      shared.users -= 1;
      throw error;
    }
    let released = false;
    return {
      plane,
      release: async () => {
        if (released) return;
        released = true;
        shared.users -= 1;
        if (shared.users === 0) {
          this.planes.delete(dataDir);
          await plane.close();
        }
      },
    };
  }

  /** How many planes are running (for tests). */
  get size(): number {
    return this.planes.size;
  }
}
