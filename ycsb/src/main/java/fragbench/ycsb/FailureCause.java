package fragbench.ycsb;

import java.util.Locale;
import site.ycsb.Status;

/**
 * A failed operation's cause in a word or two, the same for the same cause in every driver, so
 * that a report can count them per second: `timeout` (the driver or the database gave up
 * waiting: the write may still have been applied), `unavailable` (too few replicas alive to
 * try), `connection` (no connection to the node), a Redis error code (CLUSTERDOWN, MOVED,
 * TRYAGAIN, NOREPLICAS...), `replication` (a WAIT that too few replicas confirmed), or the
 * exception's class name when none of these fits; without an exception, the status's name.
 */
final class FailureCause {
  private FailureCause() {
  }

  static String of(Throwable failure, Status status) {
    if (failure == null) {
      return status.getName();
    }
    Throwable root = failure;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      String name = t.getClass().getSimpleName();
      String message = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
      if (name.contains("Timeout") || message.contains("timed out") || message.contains("timeout")) {
        return "timeout";
      }
      root = t;
    }
    // A driver that gave up after several attempts (Jedis's "No more cluster attempts left")
    // keeps the last attempt's failure as a suppressed exception: that one says why.
    Throwable[] suppressed = root.getSuppressed();
    if (suppressed.length > 0) {
      return of(suppressed[suppressed.length - 1], status);
    }
    String name = root.getClass().getSimpleName();
    if (name.contains("Unavailable")) {
      return "unavailable";
    }
    if (root instanceof ReplicationShortfall) {
      return "replication";
    }
    String code = redisErrorCode(root.getMessage());
    if (code != null) {
      return code;
    }
    if (name.contains("Connection") || name.contains("NoNodeAvailable") || name.contains("AllNodesFailed") || root instanceof java.net.ConnectException) {
      return "connection";
    }
    return name.isEmpty() ? root.getClass().getName() : name;
  }

  /** Redis error replies start with an upper-case code: `CLUSTERDOWN The cluster is down`. */
  private static String redisErrorCode(String message) {
    if (message == null) {
      return null;
    }
    int space = message.indexOf(' ');
    String word = space < 0 ? message : message.substring(0, space);
    return word.length() >= 3 && word.chars().allMatch(c -> c >= 'A' && c <= 'Z') ? word : null;
  }

  /** A write the database applied but too few replicas confirmed within the WAIT timeout. */
  static final class ReplicationShortfall extends Exception {
    private static final long serialVersionUID = 1L;

    ReplicationShortfall(long confirmed, int wanted, long timeoutMs) {
      super("WAIT: " + confirmed + " of " + wanted + " replicas confirmed the write within " + timeoutMs + " ms");
    }
  }
}
