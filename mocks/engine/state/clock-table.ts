import type { Clock } from '../clock.ts'
import type { EngineState } from './state.ts'

/** The state table of the mock clock: one record, `offset`, the seconds the clock runs ahead of real time. */
export const CLOCK_TABLE = 'clock'

/**
 * The mock clock as a table of the engine's state: its moves are recorded (so they are saved and shared), and
 * moves made elsewhere set it.
 */
export function recordedClock(clock: Clock, state: EngineState): Clock {
  state.register(CLOCK_TABLE, {
    apply(_key, value) {
      clock.setOffsetSeconds(typeof value === 'number' ? value : 0)
    },
    entries: () => [['offset', clock.offsetSeconds()]],
    clear: () => clock.setOffsetSeconds(0),
  })
  const moved = (change: () => void) => {
    const before = clock.offsetSeconds()
    change()
    state.record(CLOCK_TABLE, 'offset', clock.offsetSeconds(), before)
  }
  return {
    ...clock,
    advance: (seconds) => moved(() => clock.advance(seconds)),
    reset: () => moved(() => clock.reset()),
  }
}
