import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The local admin secret: lets `npm run admin` on this machine act through a running server
 * (which holds the embedded database) instead of opening the data directory itself.
 * A new secret is written (mode 0600) at every server start.
 */
export const adminSecretPath = (dataDir: string) => path.join(dataDir, 'admin.secret');

export function writeAdminSecret(dataDir: string): string {
  const secret = randomBytes(32).toString('base64url');
  const file = adminSecretPath(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, secret, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return secret;
}

export function readAdminSecret(dataDir: string): string | null {
  try {
    return fs.readFileSync(adminSecretPath(dataDir), 'utf8').trim() || null;
  } catch {
    return null;
  }
}
