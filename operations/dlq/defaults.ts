/**
 * Defaults the `dlq` commands show in their help: kept apart from the modules that use them, so
 * that registering the commands loads no SDK client.
 */
import * as path from 'node:path';

export { DEFAULT_STACK_NAME } from '../../aws/stack-name';

/** Where `eo local up` writes its state, relative to the working directory. */
export const DEFAULT_STATE_FILE = path.join('.eo', 'local.json');
