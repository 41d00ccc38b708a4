package fragbench.ycsb;

import java.util.concurrent.atomic.AtomicLong;
import site.ycsb.Status;

/**
 * Runs one operation with a fixed number of attempts and turns every exception into
 * Status.ERROR: an exception escaping a binding makes YCSB's core call System.exit, which would
 * end the run without its summary.
 */
final class Attempts {
  interface Operation {
    Status run() throws Exception;
  }

  /** Called before a retry, e.g. to drop a broken connection. */
  interface Recovery {
    void afterFailure(Exception e);
  }

  private static final long LOG_EVERY_MS = 1000;
  /** The exception that ended this thread's last failed operation: CheckedDB records its cause. */
  private static final ThreadLocal<Exception> LAST_FAILURE = new ThreadLocal<>();
  private final String binding;
  private final int attempts;
  private final Recovery recovery;
  private final AtomicLong lastLogged = new AtomicLong();
  private final AtomicLong suppressed = new AtomicLong();

  Attempts(String binding, int attempts, Recovery recovery) {
    this.binding = binding;
    this.attempts = Math.max(1, attempts);
    this.recovery = recovery;
  }

  Attempts(String binding, int attempts) {
    this(binding, attempts, e -> { });
  }

  /** Why this thread's last operation failed; null when it did not, or failed without an exception. */
  static Exception lastFailure() {
    return LAST_FAILURE.get();
  }

  static void forgetFailure() {
    LAST_FAILURE.remove();
  }

  Status run(String what, Operation op) {
    LAST_FAILURE.remove();
    for (int attempt = 1; ; attempt++) {
      try {
        return op.run();
      } catch (Exception e) {
        try {
          recovery.afterFailure(e);
        } catch (RuntimeException ignored) {
          // recovery is best effort; the next attempt reports what is still wrong
        }
        if (attempt >= attempts) {
          LAST_FAILURE.set(e);
          log(what, e);
          return Status.ERROR;
        }
      }
    }
  }

  /** At most one line a second, so a dead server shows in the log without flooding it. */
  private void log(String what, Exception e) {
    long now = System.currentTimeMillis();
    long last = lastLogged.get();
    if (now - last >= LOG_EVERY_MS && lastLogged.compareAndSet(last, now)) {
      long skipped = suppressed.getAndSet(0);
      System.err.println("fragbench " + binding + ": " + what + " failed after " + attempts + " attempt(s): " + e
          + (skipped > 0 ? " (" + skipped + " similar failures not shown)" : ""));
    } else {
      suppressed.incrementAndGet();
    }
  }
}
