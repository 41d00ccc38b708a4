package fragbench.ycsb;

/**
 * What makes a written value unique to its write: the value starts with
 * `fbw:<client>.<seq>.<hash>;`, where hash is FNV-1a (32 bits, 8 hex digits) of `key/field`, so
 * a value read from another register than the one it was written to is told apart from one that
 * was. The rest of YCSB's random value follows, cut so that the value keeps its length whenever
 * the field is longer than the marker (a shorter field grows to the marker's length).
 * core/consistency/history.ts parses the marker and computes the same hash.
 */
final class WriteMarker {
  static final String PREFIX = "fbw:";
  /** A marker is never longer than this; anything longer after the prefix is not one. */
  private static final int MAX_LENGTH = 96;

  private WriteMarker() {
  }

  /** FNV-1a over the UTF-16 code units of key + "/" + field. */
  static String registerHash(String key, String field) {
    int h = 0x811c9dc5;
    h = mix(h, key);
    h = (h ^ '/') * 0x01000193;
    h = mix(h, field);
    String hex = Integer.toHexString(h);
    return "00000000".substring(hex.length()) + hex;
  }

  private static int mix(int h, String text) {
    for (int i = 0; i < text.length(); i++) {
      h = (h ^ text.charAt(i)) * 0x01000193;
    }
    return h;
  }

  /** The value to write: the marker, then as much of `original` as keeps its length. */
  static String stamp(String client, long seq, String key, String field, String original) {
    String marker = PREFIX + client + "." + seq + "." + registerHash(key, field) + ";";
    return marker.length() >= original.length() ? marker : marker + original.substring(marker.length());
  }

  /**
   * The marker's id (`client.seq.hash`) in a value read; "" for a value without a marker; for a
   * value that starts like one but does not end like one, "?" and its first characters (shown as
   * it was read: the checker counts it as corrupt).
   */
  static String idOf(String value) {
    if (!value.startsWith(PREFIX)) {
      return "";
    }
    int end = value.indexOf(';', PREFIX.length());
    if (end < 0 || end > MAX_LENGTH) {
      return "?" + value.substring(0, Math.min(value.length(), 40));
    }
    return value.substring(PREFIX.length(), end);
  }
}
