/**
 * The name the example app's stack deploys under (bin/app.ts), which `eo dlq` looks for when no
 * `--stack` is given and the developer tools synthesize: one name, so that they cannot disagree.
 */
export const DEFAULT_STACK_NAME = 'EffectivelyOnce';
