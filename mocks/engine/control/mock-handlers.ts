import { errors } from '../api-error.ts'
import type { Clock } from '../clock.ts'
import type { Journal } from '../journal.ts'
import { json } from '../json-answer.ts'
import type { ControlHandlers } from './control-handler.ts'

export interface MockHandlersOptions {
  clock: Clock
  journal: Journal
  /** Back to the seeded state. */
  reset: () => void
  seed: number
}

/** The mock as a whole: its reset, its clock, its journal (`openapi/mock-control.yaml`). */
export function mockHandlers(options: MockHandlersOptions): ControlHandlers {
  const { clock, journal } = options
  const clockBody = () => ({ object: 'clock', now: clock.iso(), offset_seconds: clock.offsetSeconds() })
  return {
    resetMock() {
      options.reset()
      return json(200, { object: 'reset', seed: options.seed })
    },
    getClock: () => json(200, clockBody()),
    advanceClock({ body }) {
      const { seconds } = body as { seconds: number }
      const room = clock.maxAdvanceSeconds()
      if (seconds > room)
        throw errors.validationFailed([
          {
            param: 'seconds',
            code: 'maximum',
            message: `The clock can be moved up to 9998-12-31T23:59:59Z, that is at most ${room} seconds from ${clock.iso()}.`,
          },
        ])
      clock.advance(seconds)
      return json(200, clockBody())
    },
    listJournal({ query }) {
      return json(200, { object: 'list', ...journal.list(query as Parameters<Journal['list']>[0]) })
    },
  }
}
