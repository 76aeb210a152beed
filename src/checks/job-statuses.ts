/** The statuses a media job can report ("States and transitions"), and its active and terminal ones. */
export const JOB_STATUSES = [
  'authorizing',
  'queued',
  'running',
  'submission_uncertain',
  'output_fetching',
  'release_pending',
  'succeeded',
  'failed',
  'cancelled',
  'expired',
  'settlement_pending',
] as const;
export const ACTIVE_STATUSES = ['authorizing', 'queued', 'running', 'output_fetching'];
export const TERMINAL_STATUSES = ['succeeded', 'failed', 'cancelled', 'expired'];
