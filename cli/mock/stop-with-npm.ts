/** What the watch reads of its process (tests give their own). */
export interface ParentProbe {
  /** The process's environment: npm marks what it starts with `npm_lifecycle_event` (`npx`, `start`, ...). */
  env: NodeJS.ProcessEnv
  /** The current parent process id (it changes when the parent exits and the process is adopted). */
  ppid: () => number
  /** How often to look, in milliseconds. */
  intervalMs?: number
}

const ownProcess: ParentProbe = { env: process.env, ppid: () => process.ppid }

/**
 * npm (`npx voice-api-kit mock`, `npm start`) runs a command through a shell, and a signal sent to npm alone
 * (`kill <pid>`) reaches that shell, not the command: the mock would run on, adopted by another process, still
 * holding its port. Started by npm, the mock therefore stops as on SIGTERM when its parent goes away. Started
 * any other way (`node node_modules/.bin/voice-api-kit`, a service manager) it never watches. Returns a
 * function that ends the watch.
 */
export function stopWithNpm(stop: () => void, probe: ParentProbe = ownProcess): () => void {
  if (probe.env.npm_lifecycle_event === undefined) return () => {}
  const parent = probe.ppid()
  const timer = setInterval(() => {
    if (probe.ppid() === parent) return
    clearInterval(timer)
    stop()
  }, probe.intervalMs ?? 250)
  timer.unref()
  return () => clearInterval(timer)
}
