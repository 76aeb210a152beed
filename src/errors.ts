/**
 * Error classes that decide the exit code and the verdict. Why three: a usage or configuration
 * problem (exit 2) is the caller's to fix, a transport failure is the target's (a failed check
 * with evidence), anything else thrown inside the harness is ours (harness error, exit 3).
 */
export class UsageError extends Error {
  override name = 'UsageError';
}

export class TransportError extends Error {
  override name = 'TransportError';
  /**
   * Set when the failure says nothing about the target yet: a connection failed before any byte of a
   * response and the request could not be repeated on a fresh connection (not safe to repeat). The test
   * is then inconclusive, not failed (judging.md). Absent: the failure stands (GEN-001).
   */
  inconclusive?: string;
  constructor(
    message: string,
    readonly code: string,
    readonly exchangeId?: string,
    /** The failure came before the response's head (status line and headers) was received. */
    readonly beforeResponse = false,
  ) {
    super(message);
  }
}
