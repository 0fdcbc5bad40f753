import type { OAuthScope, UserRole } from '../db/schema';

/** A teammate calling with a credential: the user behind it, in its installation. */
export interface Principal {
  kind: 'teammate';
  installationId: number;
  userId: number;
  role: UserRole;
  /** present when the credential is an OAuth access token: the app's grant and what it may do */
  oauth?: { grantId: number; appId: number; scopes: readonly OAuthScope[] };
}

/** The parts of the service that write on their own account, with no teammate behind them. */
export type SystemPart = 'room' | 'cron' | 'import' | 'widget' | 'sla' | 'webhooks' | 'triggers' | 'survey' | 'mail';

/**
 * A part of the service acting in an installation. Events name the part; audit columns name the
 * teammate it acts for (the one who started an import), or nobody (null).
 */
export interface SystemActor {
  kind: 'system';
  installationId: number;
  userId: number | null;
  part: SystemPart;
}

/** Who reads or writes: a teammate, or the system. */
export type Actor = Principal | SystemActor;

export function systemActor(installationId: number, part: SystemPart, onBehalfOf: number | null = null): SystemActor {
  return { kind: 'system', installationId, userId: onBehalfOf, part };
}
