/**
 * The part of `@babel/core` (the parser and traverser StrykerJS instruments with) that
 * test/mutation-ignorer.test.ts uses: it walks a snippet as Stryker walks a file, to ask the ignorer.
 */
declare module '@babel/core' {
  interface BabelNode {
    start?: number | null
    end?: number | null
  }
  interface BabelPath {
    node: BabelNode
  }
  export function parseSync(
    code: string,
    options: { filename: string; parserOpts: { plugins: string[] } },
  ): BabelNode | null
  export function traverse(
    ast: BabelNode,
    visitor: { enter(path: BabelPath): void; exit(path: BabelPath): void },
  ): void
}
