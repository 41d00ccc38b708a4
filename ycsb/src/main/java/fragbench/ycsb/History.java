package fragbench.ycsb;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A checked history, one JSON line per operation, appended when the operation ends and written
 * through a small buffer (flushed at least twice a second): a long run's history is on disk, not
 * in the heap. Every time is in microseconds since the epoch on one clock: the wall clock read
 * once when the class loads, advanced by the monotonic System.nanoTime, so that a clock step
 * during the run cannot reorder two operations.
 *
 * Each record's end time is read under the writer's lock just before the line is written, so
 * the file is in end-time order (the checker merges files by it); the wait for the lock can only
 * make an end later, which makes a write's acknowledgement later and so never invents a stale
 * read. Record shapes (core/consistency/history.ts reads them):
 *   {"t":"open","c":client,"at":us}
 *   {"t":"w","c":client,"n":seq,"k":key,"f":[fields],"s":us,"ok":true|false[,"cause":text],"e":us}
 *   {"t":"r"|"f","k":key[,"f":[fields]],"s":us,"ok":true,"v":{field:marker,...},"e":us}
 *   {"t":"r"|"f","k":key,"s":us,"ok":false,"cause":text,"e":us}
 *   {"t":"close","c":client,"writes":n,"e":us}
 * ("f" is a read of the final read-back; a marker is WriteMarker's id, "" for a value without one.)
 */
final class History implements AutoCloseable {
  private static final long BASE_WALL_US = System.currentTimeMillis() * 1000;
  private static final long BASE_NANO = System.nanoTime();
  private static final long FLUSH_EVERY_MS = 500;
  private static final int BUFFER_CHARS = 64 * 1024;

  private final Writer out;
  private final Thread flusher;
  private boolean closed;

  /** Microseconds since the epoch on the history's one clock. */
  static long nowUs() {
    return BASE_WALL_US + (System.nanoTime() - BASE_NANO) / 1000;
  }

  private History(OutputStream stream) {
    this.out = new BufferedWriter(new OutputStreamWriter(stream, StandardCharsets.UTF_8), BUFFER_CHARS);
    this.flusher = new Thread(this::flushPeriodically, "fragbench-history-flush");
    flusher.setDaemon(true);
    flusher.start();
  }

  /** `-` is this process's stdout (the read-back's records go to its caller that way). */
  static History open(String target) throws IOException {
    if ("-".equals(target)) {
      return new History(System.out);
    }
    Path file = Path.of(target);
    Path dir = file.toAbsolutePath().getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    return new History(Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND));
  }

  /**
   * Ends `record` (an unterminated JSON object) with its end time and writes it; returns that time.
   * A history that can no longer be written fails the operation's caller loudly: a check on a
   * history with holes would be wrong.
   */
  synchronized long append(StringBuilder record) {
    long end = nowUs();
    record.append(",\"e\":").append(end).append("}\n");
    try {
      out.append(record);
    } catch (IOException e) {
      throw new IllegalStateException("could not write the checked history: " + e, e);
    }
    return end;
  }

  private void flushPeriodically() {
    while (true) {
      try {
        Thread.sleep(FLUSH_EVERY_MS);
      } catch (InterruptedException e) {
        return;
      }
      synchronized (this) {
        if (closed) {
          return;
        }
        try {
          out.flush();
        } catch (IOException ignored) {
          // the next append reports it
        }
      }
    }
  }

  /** Flushes what is buffered, e.g. from a shutdown hook; a closed history is left alone. */
  synchronized void flush() {
    if (closed) {
      return;
    }
    try {
      out.flush();
    } catch (IOException ignored) {
      // nothing more can be done at exit
    }
  }

  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    flusher.interrupt();
    out.close();
  }

  /** Appends `text` as a JSON string (quotes included). */
  static StringBuilder quote(StringBuilder sb, String text) {
    sb.append('"');
    // Keys, fields and markers need no escaping: one append, no per-character work.
    if (plain(text)) {
      return sb.append(text).append('"');
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"':
          sb.append("\\\"");
          break;
        case '\\':
          sb.append("\\\\");
          break;
        case '\n':
          sb.append("\\n");
          break;
        case '\r':
          sb.append("\\r");
          break;
        case '\t':
          sb.append("\\t");
          break;
        default:
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
      }
    }
    return sb.append('"');
  }

  private static boolean plain(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c == '"' || c == '\\') {
        return false;
      }
    }
    return true;
  }
}
