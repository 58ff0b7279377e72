/** `npm run bench:guards`: the repeat-guard benchmark alone. */

import { guards } from './index'

await guards()
