export { scriptedProvider } from './scripted-provider'
export type { ScriptedProvider, ScriptedProviderOptions, ScriptedTurn } from './scripted-provider'
