#!/usr/bin/env node
// The `voice-api-kit` command: runs the built CLI, or the TypeScript source through tsx in a checkout.
import { existsSync } from 'node:fs'

const built = new URL('../dist/mocks/cli/main.js', import.meta.url)
if (existsSync(built)) {
  await import(built.href)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  await import(new URL('../mocks/cli/main.ts', import.meta.url).href)
}
