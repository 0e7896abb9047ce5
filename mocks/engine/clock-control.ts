/**
 * The clock's offset as the control plane and the state set it (the reset, a saved or replicated clock), and
 * the room left to move forward before `latestMs` (`POST /_mock/clock/advance`); `setOffsetMs` sets the
 * clock's offset from real time. The v1 API shows only the time itself (`Clock.now`, `Clock.iso`), which moves
 * on with `Clock.advance`.
 */
export function offsetControl(setOffsetMs: (ms: number) => void, now: () => number, latestMs: number) {
  return {
    maxAdvanceSeconds: () => Math.max(0, Math.floor((latestMs - now()) / 1000)),
    reset(): void {
      setOffsetMs(0)
    },
    setOffsetSeconds(seconds: number): void {
      setOffsetMs(seconds * 1000)
    },
  }
}
