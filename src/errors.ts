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
  constructor(
    message: string,
    readonly code: string,
    readonly exchangeId?: string,
  ) {
    super(message);
  }
}
