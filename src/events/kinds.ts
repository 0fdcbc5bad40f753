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
  | 'cleared'
  | 'accepted'
  | 'declined'
  | 'cancelled'
  | 'synced';
