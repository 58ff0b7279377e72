/**
 * `zidane/testing`: a scripted provider for offline tests and examples of code built on zidane,
 * a fake model server that speaks the Anthropic and OpenAI streaming wire to the real provider clients,
 * effects that make a run repeat exactly, and a harness that runs one policy against scripted phase calls.
 *
 * @module zidane/testing
 */

export { startFakeModelServer } from './fake-model-server'
export type { FakeModelRequest, FakeModelServer, FakeModelServerOptions, FakeModelStep, FakeModelTurn, FakeModelWire } from './fake-model-server'
export { runPolicyScript } from './policy-script'
export type {
  AfterTurnStep,
  GateBatchStep,
  GateCallStep,
  PolicyScriptEvent,
  PolicyScriptOptions,
  PolicyScriptOutcome,
  PolicyScriptResult,
  PolicyScriptStep,
  PolicyScriptStepResult,
  ProviderErrorStep,
  RequestStep,
  ResultStep,
  ScriptedCall,
} from './policy-script'
export { scriptedProvider } from './scripted-provider'
export type { ScriptedProvider, ScriptedProviderOptions, ScriptedTurn } from './scripted-provider'
export { testEffects } from './test-effects'
export type { TestEffectsOptions } from './test-effects'
