import type { CallEvent, EventContext, EventListener } from './call-event.ts'

/**
 * The in-process listeners of events. Events made during a step wait here until the step's changes were kept
 * (`flush`, after the store), so that a listener never hears of something that was then undone.
 */
export function createEventBus() {
  const listeners = new Set<EventListener>()
  let pending: [CallEvent, EventContext][] = []
  return {
    /** Adds a listener; the function returned removes it. */
    listen(listener: EventListener): () => void {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    /** An event of the current step. */
    push(event: CallEvent, context: EventContext): void {
      if (listeners.size > 0) pending.push([event, context])
    },
    /** Tells the listeners of the events of the steps kept; a listener that throws does not stop the others. */
    flush(): void {
      const events = pending
      pending = []
      for (const [event, context] of events)
        for (const listener of listeners) {
          try {
            listener(event, context)
          } catch {
            // A listener's failure is its own; the mock goes on.
          }
        }
    },
    /** Forgets the events of a step that was undone. */
    discard(): void {
      pending = []
    },
  }
}

export type EventBus = ReturnType<typeof createEventBus>
