/** What happened to a record. */
export type EventKind =
  | 'created'
  | 'updated'
  | 'deleted'
  | 'linked'
  | 'unlinked'
  | 'imported'
  | 'migrated'
  | 'installed'
  | 'uninstalled'
  | 'settingChanged'
  | 'accepted'
  | 'declined'
  | 'cancelled'
  | 'synced'
  | 'merged'
  | 'split'
  /** a trigger acted on a ticket (or was stopped at the chain's depth) */
  | 'triggered';
