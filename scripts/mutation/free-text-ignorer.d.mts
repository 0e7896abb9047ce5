/** The free-text ignorer as StrykerJS loads it (free-text-ignorer.mjs). */
export declare const strykerPlugins: readonly {
  value: { shouldIgnore(path: unknown): string | undefined }
}[]
