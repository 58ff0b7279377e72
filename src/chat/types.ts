import type { AgentProfile } from '../agent/options'
import type { AgentBehavior } from '../knobs/behavior'

/**
 * A chat product's mode ("plan", "build", a reviewer): a profile that always
 * says how it behaves. Run with it (`agent.run({ profile })`) and it is one
 * layer of the run's plan, between the agent and the run.
 */
export interface ChatProfile extends AgentProfile {
  readonly behavior: AgentBehavior
}
