import { accessSync, constants, existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { TargetError } from '../../contracts/target/resolve-target.ts'

const reason = (error: unknown) =>
  (error as { code?: string }).code ?? (error instanceof Error ? error.message : String(error))

/**
 * Checks before the run that a report can be written to `path` (its folder exists and is writable, and it is
 * not a folder itself), so that a bad `--output` is a usage error before any request is sent.
 */
export function checkWritable(path: string, flag = '--output'): void {
  const full = resolve(path)
  const folder = dirname(full)
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new TargetError(`${flag} ${path}: the folder ${folder} does not exist.`)
  if (existsSync(full) && statSync(full).isDirectory())
    throw new TargetError(`${flag} ${path}: that is a folder, not a file.`)
  try {
    accessSync(folder, constants.W_OK)
    if (existsSync(full)) accessSync(full, constants.W_OK)
  } catch (error) {
    throw new TargetError(`${flag} ${path}: cannot write there (${reason(error)}).`)
  }
}

/**
 * Writes a report whole or not at all: into a temporary file beside it, then renamed over it. Returns the
 * one-line reason when it could not be written (nothing is left behind).
 */
export function writeReportFile(path: string, text: string): string | undefined {
  const full = resolve(path)
  const temporary = `${full}.${process.pid}.tmp`
  try {
    writeFileSync(temporary, text)
    renameSync(temporary, full)
    return undefined
  } catch (error) {
    rmSync(temporary, { force: true })
    return `could not write ${path} (${reason(error)})`
  }
}
