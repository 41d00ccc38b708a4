/** One place for "try again a few times when this particular failure happens". */

/**
 * Runs `attempt` up to `tries` times: again after a failure `worthRetrying` accepts, with
 * `onRetry` told which try failed; any other failure, or the last, is thrown.
 */
export async function withRetries<T>(
  tries: number,
  attempt: () => Promise<T>,
  worthRetrying: (err: unknown) => boolean = () => true,
  onRetry: (failedTry: number, err: unknown) => void = () => undefined,
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (n >= tries || !worthRetrying(err)) throw err;
      onRetry(n, err);
    }
  }
}
