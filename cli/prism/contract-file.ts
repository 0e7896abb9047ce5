import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * The path of a contract document this package ships (`openapi/v1.yaml`, `openapi/mock-control.yaml`), found
 * from the sources (`cli/prism/`) or from the build (`dist/cli/prism/`).
 */
export function contractFile(name: 'v1.yaml' | 'mock-control.yaml'): string {
  const candidates = [`../../openapi/${name}`, `../../../openapi/${name}`].map((relative) =>
    fileURLToPath(new URL(relative, import.meta.url)),
  )
  const found = candidates.find((path) => existsSync(path))
  if (!found) throw new Error(`This installation of voice-api-kit has no openapi/${name}.`)
  return found
}
