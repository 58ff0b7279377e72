/**
 * The order a script's nested calls run in, as the loop orders a turn's
 * calls: concurrency-safe calls run together, and a call that is not safe
 * runs alone, after the calls before it and before the ones after it. A
 * script that fires writes with `Promise.all` gets them one at a time.
 */
export class NestedCallOrder {
  private running = 0
  private exclusive = false
  private readonly waiting: { safe: boolean, start: () => void }[] = []

  /** Run `work` when its turn comes. */
  async run<T>(safe: boolean, work: () => Promise<T>): Promise<T> {
    await this.enter(safe)
    try {
      return await work()
    }
    finally {
      this.leave(safe)
    }
  }

  private enter(safe: boolean): Promise<void> {
    if (this.waiting.length === 0 && this.admits(safe)) {
      this.take(safe)
      return Promise.resolve()
    }
    return new Promise(resolve => this.waiting.push({ safe, start: resolve }))
  }

  private admits(safe: boolean): boolean {
    return safe ? !this.exclusive : this.running === 0
  }

  private take(safe: boolean): void {
    this.running++
    if (!safe)
      this.exclusive = true
  }

  private leave(safe: boolean): void {
    this.running--
    if (!safe)
      this.exclusive = false
    // In arrival order: a waiting unsafe call holds back the safe calls behind it.
    while (this.waiting.length > 0 && this.admits(this.waiting[0].safe)) {
      const next = this.waiting.shift()!
      this.take(next.safe)
      next.start()
    }
  }
}
