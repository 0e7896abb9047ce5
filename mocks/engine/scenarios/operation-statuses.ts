import type { Operation } from '../contract/router.ts'

/** Statuses a scenario may inject into any operation, documented or not: the server and gateway failures. */
export const GATEWAY_STATUSES: readonly number[] = [500, 502, 503, 504]

/** The statuses an operation documents, ascending. */
export function documentedStatuses(operation: Operation): number[] {
  return Object.keys(operation.object.responses ?? {})
    .filter((status) => /^[1-5]\d\d$/.test(status))
    .map(Number)
    .sort((a, b) => a - b)
}

/** The statuses a scenario (or `Prefer: code=`) may inject: the documented errors, and 500, 502, 503, 504. */
export function injectableStatuses(operation: Operation): number[] {
  const errors = documentedStatuses(operation).filter((status) => status >= 400)
  return [...new Set([...errors, ...GATEWAY_STATUSES])].sort((a, b) => a - b)
}

/** The statuses a scenario for every operation (`*`) may inject: those every operation may. */
export function injectableForAll(operations: readonly Operation[]): number[] {
  const [first, ...rest] = operations.map(injectableStatuses)
  return (first ?? [...GATEWAY_STATUSES]).filter((status) => rest.every((list) => list.includes(status)))
}
