/** The largest message the tests' Worker takes (its `MAIL_MAX_BYTES`): under the local email harness's own 1 MiB. */
export const TEST_MAIL_MAX_BYTES = 256 * 1024;

/** The tests' Worker tries a send again after a second (its `MAIL_RETRY_BASE_SECONDS`), not a minute. */
export const TEST_MAIL_RETRY_BASE_SECONDS = 1;

/** The address the tests' Worker puts in links it mails (its `PUBLIC_URL`): a test reads a link's path against the real one. */
export const TEST_PUBLIC_URL = 'https://helpdesk.test';
