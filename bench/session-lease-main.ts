/** The session-lease benchmark alone: `node --import tsx bench/session-lease-main.ts`. */

import { sessionLease } from './session-lease'

await sessionLease()
