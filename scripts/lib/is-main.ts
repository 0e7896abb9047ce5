import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** Whether the module with this `import.meta.url` is the script Node was started with. */
export function isMain(moduleUrl: string): boolean {
  const entry = process.argv[1]
  if (!entry) return false
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(moduleUrl))
  } catch {
    return false
  }
}
