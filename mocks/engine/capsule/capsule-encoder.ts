import type { Capsule } from './capsule.ts'

/**
 * Writes capsules as JSON text, reusing the text of every record it wrote before: records are never changed in
 * place (copy-on-write), so a record object met again is written as it was. A capsule taken after every step
 * (the contract run takes one before each check) then costs the records that changed, not the whole state.
 */
export function createCapsuleEncoder() {
  const written = new WeakMap<object, string>()

  function record(value: unknown): string {
    if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null'
    let text = written.get(value)
    if (text === undefined) {
      text = JSON.stringify(value)
      written.set(value, text)
    }
    return text
  }

  return {
    encode(capsule: Capsule): string {
      const { state, ...head } = capsule
      const tables = Object.entries(state.tables).map(
        ([name, records]) =>
          `${JSON.stringify(name)}:[${records.map(([key, value]) => `[${JSON.stringify(key)},${record(value)}]`).join(',')}]`,
      )
      const start = JSON.stringify(head).slice(0, -1)
      return `${start},"state":{"version":${JSON.stringify(state.version)},"tables":{${tables.join(',')}}}}`
    },
  }
}
