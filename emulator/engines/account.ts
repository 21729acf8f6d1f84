/** The region every local engine and client uses. */
export const LOCAL_REGION = 'us-east-1';

/** The account the emulators put in ARNs (fauxqs and kinesalite agree on it). */
export const LOCAL_ACCOUNT_ID = '000000000000';

/** The engines check that credentials are present, not what they are. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
