// Deterministic fault injection for the /v1 API (never /dev/): with the same seed and the same
// sequence of requests, the same requests are delayed, failed or answered into the void.
export interface FaultOptions {
  latencyMs?: number;
  /** Share of requests answered 503 `unavailable` before anything is done. */
  failRate?: number;
  /** Share of requests that take effect and then lose their answer (socket destroyed). */
  lostResponseRate?: number;
  /** Share of requests answered 429 `resource_exhausted` with `retry-after: 0` before anything is done. */
  throttleRate?: number;
  seed?: number;
  /** Lose the answers of the first N requests of these operations (taking effect first), e.g. `{'agents.upsert': 1}`. */
  loseFirst?: Readonly<Record<string, number>>;
}

export interface FaultDecision {
  delayMs: number;
  fail: boolean;
  throttle: boolean;
  loseResponse: boolean;
}

/** mulberry32: tiny, fast, good enough to pick faults reproducibly. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultInjector {
  private readonly random: () => number;
  private readonly toLose: Map<string, number>;
  constructor(private readonly options: FaultOptions = {}) {
    this.random = seededRandom(options.seed ?? 1);
    this.toLose = new Map(Object.entries(options.loseFirst ?? {}));
  }

  get enabled(): boolean {
    const { latencyMs = 0, failRate = 0, lostResponseRate = 0, throttleRate = 0 } = this.options;
    return latencyMs > 0 || failRate > 0 || lostResponseRate > 0 || throttleRate > 0 || [...this.toLose.values()].some((left) => left > 0);
  }

  /**
   * One decision per request; the fail and lose draws are always taken so one rate never shifts the
   * other's sequence. The throttle draw is taken only when throttling is on, so seeds chosen before
   * it existed still give the same 503s and lost responses.
   */
  next(rpc?: string): FaultDecision {
    const failDraw = this.random();
    const loseDraw = this.random();
    const throttleRate = this.options.throttleRate ?? 0;
    const throttleDraw = throttleRate > 0 ? this.random() : 1;
    const fail = failDraw < (this.options.failRate ?? 0);
    const throttle = !fail && throttleDraw < throttleRate;
    const targeted = rpc !== undefined && (this.toLose.get(rpc) ?? 0) > 0;
    if (targeted) this.toLose.set(rpc, (this.toLose.get(rpc) as number) - 1);
    return {
      delayMs: Math.max(0, this.options.latencyMs ?? 0),
      fail: fail && !targeted,
      throttle: throttle && !targeted,
      loseResponse: targeted || (!fail && !throttle && loseDraw < (this.options.lostResponseRate ?? 0)),
    };
  }
}
