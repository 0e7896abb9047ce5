/** The types of scope.mjs (plain JavaScript, as Stryker's configuration loads it). */
export declare const OWN_TESTS_MODULES: readonly string[]
export declare const NEITHER_RUN: readonly string[]
export declare const CONTRACT_RUN_MUTATES: readonly string[]
