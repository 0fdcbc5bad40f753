import type { UserRole } from '../db/schema';

/** Who is calling: the user behind the credential, in its installation. */
export interface Principal {
  installationId: number;
  userId: number;
  role: UserRole;
}
