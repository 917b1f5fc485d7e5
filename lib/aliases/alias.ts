import type { aliases } from '@/lib/db/schema';

/** An alias as stored (its secrets sealed). */
export type AliasRow = typeof aliases.$inferSelect;
/** An alias with its secrets decrypted, for the access rules and the owner's views. */
export type Alias = Omit<AliasRow, 'passcodeEnc' | 'jwtSecretEnc' | 'streamKeyEnc'> & {
  passcode: string | null;
  jwtSecret: string | null;
  streamKey: string | null;
};
