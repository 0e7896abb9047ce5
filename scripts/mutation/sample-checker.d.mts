/** The sample checker as the scripts and tests read it (sample-checker.mjs). */
export declare const OUTSIDE_SAMPLE: string
export declare function projectPath(fileName: string): string
export declare function inSample(
  mutant: {
    fileName: string
    location: { start: { line: number; column: number } }
    mutatorName: string
    replacement?: string
  },
  fraction: number,
  seed: number,
): boolean
export declare function sampleFromEnvironment(env?: Record<string, string | undefined>): {
  fraction: number
  seed: number
}
export declare const strykerPlugins: readonly unknown[]
