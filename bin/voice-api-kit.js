#!/usr/bin/env node
// The `voice-api-kit` command: runs the compiled build in dist/. Only inside a clone of the repository
// (where the TypeScript sources sit beside the build) does it check that there is a build and that it is not
// older than the sources, and run the sources through tsx (a devDependency) when not: the installed package
// has no sources. A clone has no build after `npm ci` (the package has no install script: npm warns about
// those where the package is installed), so `npm ci && npm start` starts from the sources.
import { existsSync, readdirSync, statSync } from 'node:fs'

const root = new URL('../', import.meta.url)
const SOURCES = ['cli', 'mocks', 'contracts', 'openapi']

function newestSource(folder) {
  let newest = 0
  if (!existsSync(folder)) return newest
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue
    const path = new URL(entry.name + (entry.isDirectory() ? '/' : ''), folder)
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path))
    else if (/\.(ts|js|css|html)$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs)
  }
  return newest
}

/** Why the build in dist/ cannot run in this clone, or undefined when it is current. */
function staleBuild() {
  const stamp = new URL('dist/.built', root)
  if (!existsSync(stamp))
    return 'no build in dist/ yet; running the sources through tsx (npm run build makes one, which starts faster).'
  const builtAt = statSync(stamp).mtimeMs
  if (SOURCES.every((folder) => newestSource(new URL(`${folder}/`, root)) <= builtAt)) return undefined
  return 'dist/ is older than the sources; running them through tsx (npm run build refreshes it).'
}

const inClone = existsSync(new URL('cli/main.ts', root))
const stale = inClone ? staleBuild() : undefined
if (stale === undefined) {
  await import(new URL('dist/cli/main.js', root).href)
} else {
  console.error(`voice-api-kit: ${stale}`)
  const { register } = await import('tsx/esm/api')
  register()
  await import(new URL('cli/main.ts', root).href)
}
