// A small work graph: nodes with dependencies run as soon as their dependencies are done, at most
// `concurrency` at a time. A failed node marks everything that depends on it (transitively) as
// skipped, while independent branches go on. Stopping (SIGINT) lets running nodes finish and starts
// no new ones. A node may release its dependents before it ends (`release`): its remaining work is
// something they do not need (a connection's informational tools/list after its write).
import { monotonicMs } from '../util/clock.js';

export type NodeState = 'pending' | 'running' | 'done' | 'failed' | 'skipped';

export interface WorkNode {
  id: string;
  dependsOn: string[];
  /**
   * `release()`: what dependents need is done; they may start now, while this node goes on (and
   * still holds its slot). A node that fails after releasing does not skip them: they have started.
   */
  run: (release: () => void) => Promise<void>;
}

export interface NodeOutcome {
  id: string;
  state: Exclude<NodeState, 'pending' | 'running'> | 'not-started';
  error?: unknown;
  /** For skipped nodes: the failed node that caused it. */
  blockedBy?: string;
  ms?: number;
}

export interface WorkGraphOptions {
  concurrency: number;
  /** Checked before each node starts; once true, nothing new starts. */
  shouldStop?: () => boolean;
  onStart?: (id: string) => void;
  onEnd?: (outcome: NodeOutcome) => void;
}

export async function runWorkGraph(nodes: WorkNode[], options: WorkGraphOptions): Promise<NodeOutcome[]> {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const dependents = new Map<string, string[]>();
  const waitingOn = new Map<string, number>();
  for (const node of nodes) {
    // Dependencies outside the graph are already satisfied (no change planned for them).
    const inGraph = [...new Set(node.dependsOn)].filter((dep) => byId.has(dep) && dep !== node.id);
    waitingOn.set(node.id, inGraph.length);
    for (const dep of inGraph) {
      const list = dependents.get(dep) ?? [];
      list.push(node.id);
      dependents.set(dep, list);
    }
  }

  const outcomes = new Map<string, NodeOutcome>();
  // A queue read from `head` on: shift() would move the whole array each time (quadratic at 10k nodes).
  const ready: string[] = nodes.filter((node) => waitingOn.get(node.id) === 0).map((node) => node.id);
  let head = 0;
  let running = 0;
  const concurrency = Math.max(1, Math.floor(options.concurrency));

  const record = (outcome: NodeOutcome) => {
    outcomes.set(outcome.id, outcome);
    options.onEnd?.(outcome);
  };

  const skipDependents = (failedId: string, rootCause: string) => {
    const stack = [...(dependents.get(failedId) ?? [])];
    while (stack.length > 0) {
      const id = stack.pop() as string;
      if (outcomes.has(id)) continue;
      record({ id, state: 'skipped', blockedBy: rootCause });
      stack.push(...(dependents.get(id) ?? []));
    }
  };

  await new Promise<void>((resolve) => {
    const pump = () => {
      while (running < concurrency && head < ready.length && !options.shouldStop?.()) {
        const id = ready[head++] as string;
        if (outcomes.has(id)) continue;
        const node = byId.get(id) as WorkNode;
        running += 1;
        options.onStart?.(id);
        const started = monotonicMs();
        let released = false;
        const releaseDependents = () => {
          if (released) return;
          released = true;
          for (const next of dependents.get(id) ?? []) {
            const left = (waitingOn.get(next) as number) - 1;
            waitingOn.set(next, left);
            if (left === 0 && !outcomes.has(next)) ready.push(next);
          }
        };
        node
          .run(() => {
            if (released || outcomes.has(id)) return;
            releaseDependents();
            // Started on the next microtask, so the releasing node finishes its own step first.
            queueMicrotask(pump);
          })
          .then(
            () => {
              running -= 1;
              record({ id, state: 'done', ms: monotonicMs() - started });
              releaseDependents();
              pump();
            },
            (error: unknown) => {
              running -= 1;
              record({ id, state: 'failed', error, ms: monotonicMs() - started });
              if (!released) skipDependents(id, id);
              pump();
            },
          );
      }
      if (running === 0) resolve();
    };
    pump();
  });

  return nodes.map((node) => outcomes.get(node.id) ?? { id: node.id, state: 'not-started' });
}
