/**
 * `--data-api-statement-failures`, as `eo local up` and `eo demo` take it: what a failed statement
 * does to its Data API transaction in local mode. AWS's troubleshooting page describes the
 * transaction as aborted (the default); `keep-transaction` is PostgreSQL's own behaviour behind a
 * savepoint. The runtime handles both (docs/patterns/sql-dedup.md).
 */
import { Option } from 'commander';
import { DEFAULT_STATEMENT_FAILURE_BEHAVIOUR, STATEMENT_FAILURE_BEHAVIOURS } from '../gateway/data-api-service';

/** The option, with its choices and its default. */
export function statementFailuresOption(): Option {
  return new Option('--data-api-statement-failures <behaviour>', 'what a failed Data API statement does to its transaction: abort it, as AWS documents, or keep it, as PostgreSQL does behind a savepoint')
    .choices(STATEMENT_FAILURE_BEHAVIOURS)
    .default(DEFAULT_STATEMENT_FAILURE_BEHAVIOUR);
}
