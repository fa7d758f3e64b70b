/** A submission receipt as Reasonix decodes it (`submission/accepted`, docs/format.md §7.1): a missing field is empty. */
export interface SubmissionReceipt {
  fingerprintVersion?: number;
  acceptedAttachmentDigests?: string;
  sessionId?: string;
  submissionId?: string;
  fingerprint?: string;
  turnId?: string;
  messageId?: string;
}

/**
 * The submission receipts a log holds, checked as Reasonix 1.38.11 projects them (measured with the binary): a
 * receipt without a session, submission, fingerprint, message or turn id, or whose turn is not its batch's, is
 * `invalid submission receipt`; a second receipt for one session and submission id that differs in any field is
 * `conflicting submission receipt`; the same receipt again is taken.
 */
export class SubmissionReceipts {
  /** Each receipt taken, by its session and submission id, as all its fields. */
  private readonly taken = new Map<string, string>();

  /** Why Reasonix refuses `receipt` in a batch of `turnId`; undefined when it takes it, which this then holds. */
  take(receipt: SubmissionReceipt, turnId: string | undefined): string | undefined {
    const { sessionId = '', submissionId = '', fingerprint = '', messageId = '', turnId: its = '' } = receipt;
    if (!sessionId || !submissionId || !fingerprint || !messageId || !its || its !== (turnId ?? ''))
      return 'invalid submission receipt';
    const key = submissionKey(receipt);
    const fields = JSON.stringify([
      receipt.fingerprintVersion ?? 0,
      receipt.acceptedAttachmentDigests ?? '',
      sessionId,
      submissionId,
      fingerprint,
      its,
      messageId,
    ]);
    const held = this.taken.get(key);
    if (held !== undefined && held !== fields) return 'conflicting submission receipt';
    this.taken.set(key, fields);
    return undefined;
  }

  /** The keys of the receipts taken: a later batch with one of them is judged against the whole log. */
  keys(): IterableIterator<string> {
    return this.taken.keys();
  }
}

/** What a receipt is known by: its session and submission id. */
function submissionKey(receipt: SubmissionReceipt): string {
  return `${receipt.sessionId ?? ''}\u0000${receipt.submissionId ?? ''}`;
}
