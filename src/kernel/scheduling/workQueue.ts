/**
 * A queue of work run at most `concurrency` at a time in this process, in order of
 * arrival, urgent work before any waiting work that is not (in order among itself),
 * except that after `maxUrgentInARow` urgent starts in a row the work waiting longest of
 * the rest starts next (Infinity, the default: urgent work always goes first). The one
 * mechanism behind a business's turns (./turns.ts) and the background lane
 * (./background.ts); each of those says what waits in it and why.
 */
export class WorkQueue {
  /** Work running now. */
  private active = 0;
  private readonly urgent: (() => void)[] = [];
  private readonly normal: (() => void)[] = [];
  /** Urgent starts since work that was not urgent last started. */
  private urgentInARow = 0;

  /**
   * `concurrency`: the most work running at once (may be changed; waiting work starts as
   * running work ends); `maxUrgentInARow`: see the class comment.
   */
  constructor(
    public concurrency: number,
    public maxUrgentInARow = Number.POSITIVE_INFINITY,
  ) {}

  /** Work running now. */
  get running(): number {
    return this.active;
  }

  /** Work waiting for its start. */
  get waiting(): number {
    return this.urgent.length + this.normal.length;
  }

  /** Nothing running and nothing waiting. */
  get idle(): boolean {
    return this.active === 0 && this.waiting === 0;
  }

  /**
   * Runs `work` once fewer than `concurrency` run and the work before it (see the module
   * comment) has started; resolves or rejects as `work` does, and its end, whatever its
   * outcome, starts the next.
   */
  async run<T>(work: () => Promise<T>, opts: { urgent?: boolean } = {}): Promise<T> {
    if (this.active < this.concurrency) {
      this.active += 1;
      this.urgentInARow = opts.urgent ? this.urgentInARow + 1 : 0;
    } else await new Promise<void>((resolve) => (opts.urgent ? this.urgent : this.normal).push(resolve)); // handed the slot of the work that ended
    try {
      return await work();
    } finally {
      const urgent = this.urgent.length > 0 && (this.normal.length === 0 || this.urgentInARow < this.maxUrgentInARow);
      const next = urgent ? this.urgent.shift() : this.normal.shift();
      if (next) {
        this.urgentInARow = urgent ? this.urgentInARow + 1 : 0;
        next();
      } else this.active -= 1;
    }
  }
}
