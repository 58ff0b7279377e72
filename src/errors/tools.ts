/**
 * Tool calls and where they run: a call the run does not allow, an approval
 * for no pending call, an execution context's missing working directory.
 */

/** A tool was called that the run does not allow. */
export class AgentToolNotAllowedError extends Error {
  override name = 'AgentToolNotAllowedError'
  readonly tool: string
  constructor(tool: string, reason?: string) {
    super(reason ? `Tool "${tool}" is not allowed: ${reason}` : `Tool "${tool}" is not allowed`)
    this.tool = tool
  }
}

/**
 * `agent.approve()` / `agent.deny()` named a call that has no approval to
 * decide: no run of this agent waits on it, and the session's last top-level
 * run is not suspended with it pending (`problem: 'not-pending'`); or a run
 * is in progress, so the saved one cannot be changed under it
 * (`problem: 'running'`).
 */
export class ToolApprovalError extends Error {
  override name = 'ToolApprovalError'
  readonly callId: string
  readonly problem: 'not-pending' | 'running'
  constructor(message: string, init: { callId: string, problem: 'not-pending' | 'running' }) {
    super(message)
    this.callId = init.callId
    this.problem = init.problem
  }
}

/** An execution context's working directory is missing, not a directory, or not accessible. */
export class WorkingDirectoryError extends Error {
  override name = 'WorkingDirectoryError'
  /** The directory, as the context resolved it. */
  readonly path: string
  readonly code: 'ENOENT' | 'ENOTDIR' | 'EACCES'
  constructor(path: string, code: WorkingDirectoryError['code'], options: { cause?: unknown } = {}) {
    const problem = code === 'ENOENT' ? 'does not exist' : code === 'ENOTDIR' ? 'is not a directory' : 'is not accessible'
    super(`The execution context's working directory ${path} ${problem}`, { cause: options.cause })
    this.path = path
    this.code = code
  }
}
