/**
 * `zidane/testing`: a scripted provider for offline tests and examples of code built on zidane.
 *
 * @module zidane/testing
 */

export { scriptedProvider } from './scripted-provider'
export type { ScriptedProvider, ScriptedProviderOptions, ScriptedTurn } from './scripted-provider'
