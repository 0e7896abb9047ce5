#!/usr/bin/env node
// The `voice-api-kit` command: runs the compiled build in dist/. Only inside a clone of the repository
// (where the TypeScript sources sit beside the build) does it check that the build is not older than the
// sources, and run the sources through tsx (a devDependency) when it is: the installed package has no sources.
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

function buildIsCurrent() {
  const stamp = new URL('dist/.built', root)
  if (!existsSync(stamp)) return false
  const builtAt = statSync(stamp).mtimeMs
  return SOURCES.every((folder) => newestSource(new URL(`${folder}/`, root)) <= builtAt)
}

const inClone = existsSync(new URL('cli/main.ts', root))
if (!inClone || buildIsCurrent()) {
  await import(new URL('dist/cli/main.js', root).href)
} else {
  console.error(
    'voice-api-kit: dist/ is missing or older than the sources; running them through tsx (npm run build refreshes it).',
  )
  const { register } = await import('tsx/esm/api')
  register()
  await import(new URL('cli/main.ts', root).href)
}
