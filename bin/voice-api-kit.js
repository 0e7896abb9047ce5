#!/usr/bin/env node
// The `voice-api-kit` command. Runs the build in dist/ (fast start: `npm run build`, run by `prepare` on
// install) unless a source file is newer than the build; then runs the TypeScript sources through tsx.
import { existsSync, readdirSync, statSync } from 'node:fs'

const root = new URL('../', import.meta.url)
const stamp = new URL('dist/.built', root)
const SOURCES = ['mocks', 'contracts', 'openapi/generated', 'scripts']

function newestSource(folder) {
  let newest = 0
  if (!existsSync(folder)) return newest
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue
    const path = new URL(entry.name + (entry.isDirectory() ? '/' : ''), folder)
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path))
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs)
  }
  return newest
}

const builtAt = existsSync(stamp) ? statSync(stamp).mtimeMs : -1
const fresh = builtAt >= 0 && SOURCES.every((folder) => newestSource(new URL(`${folder}/`, root)) <= builtAt)
if (fresh) {
  await import(new URL('dist/mocks/cli/main.js', root).href)
} else {
  if (builtAt >= 0)
    console.error(
      'voice-api-kit: dist/ is older than the sources; running them through tsx (npm run build refreshes it).',
    )
  const { register } = await import('tsx/esm/api')
  register()
  await import(new URL('mocks/cli/main.ts', root).href)
}
