/**
 * Inside one process: steps over one account each run side by side (their accounts are apart, and what is
 * global they only read), a step over the whole state runs alone. Readers of `shared` wait while a step
 * over the whole state waits or runs, so that it is not starved.
 */
export class StoreGate {
  private shared = 0
  private exclusive = false
  private waitingExclusive = 0
  private readonly waiters = new Set<() => boolean>()

  private wake(): void {
    for (const waiter of [...this.waiters]) if (waiter()) this.waiters.delete(waiter)
  }

  /** Resolves once `ready()`, having called `take()` in the same turn (so that no other waiter sees it ready). */
  private when(ready: () => boolean, take: () => void): Promise<void> {
    if (ready()) {
      take()
      return Promise.resolve()
    }
    return new Promise((resolve) => {
      this.waiters.add(() => {
        if (!ready()) return false
        take()
        resolve()
        return true
      })
    })
  }

  enterShared(): Promise<void> {
    return this.when(
      () => !this.exclusive && this.waitingExclusive === 0,
      () => {
        this.shared++
      },
    )
  }

  leaveShared(): void {
    this.shared--
    this.wake()
  }

  enterExclusive(): Promise<void> {
    this.waitingExclusive++
    return this.when(
      () => !this.exclusive && this.shared === 0,
      () => {
        this.waitingExclusive--
        this.exclusive = true
      },
    )
  }

  leaveExclusive(): void {
    this.exclusive = false
    this.wake()
  }
}
