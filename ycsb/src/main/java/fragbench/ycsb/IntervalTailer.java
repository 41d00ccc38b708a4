package fragbench.ycsb;

import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * Follows the HdrHistogram interval logs YCSB writes (one file per measurement, `<name>.hdr`)
 * and prints each interval as one line:
 * FRAGBENCH-INTERVAL op=READ startMs=... endMs=... count=... avgUs=... p95Us=... p99Us=...
 */
final class IntervalTailer {
  private static final long POLL_MS = 50;
  private static final Pattern START_TIME = Pattern.compile("^#\\[StartTime: ([0-9.]+) ");

  /** Where one log file has been read to. */
  private static final class LogState {
    long position;
    long baseMs = -1;
    final StringBuilder partial = new StringBuilder();
  }

  private final Path dir;
  private final PrintStream out;
  private final Map<Path, LogState> logs = new HashMap<>();
  private final Thread poller;
  private volatile boolean running = true;

  IntervalTailer(Path dir, PrintStream out) {
    this.dir = dir;
    this.out = out;
    this.poller = new Thread(this::loop, "fragbench-interval-tailer");
    this.poller.setDaemon(true);
  }

  void start() {
    poller.start();
  }

  /** Prints whatever is left in the logs; later calls do nothing more. */
  void stop() {
    running = false;
    poller.interrupt();
    try {
      poller.join(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    poll();
  }

  private void loop() {
    while (running) {
      poll();
      try {
        Thread.sleep(POLL_MS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private synchronized void poll() {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.hdr")) {
      for (Path file : files) {
        readNew(file, logs.computeIfAbsent(file, f -> new LogState()));
      }
    } catch (IOException e) {
      // the directory is gone only at exit, after the last poll
    }
  }

  private void readNew(Path file, LogState state) throws IOException {
    try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
      long length = in.length();
      if (length <= state.position) {
        return;
      }
      byte[] bytes = new byte[(int) (length - state.position)];
      in.seek(state.position);
      in.readFully(bytes);
      state.position = length;
      state.partial.append(new String(bytes, StandardCharsets.US_ASCII));
    }
    String name = file.getFileName().toString();
    String op = name.substring(0, name.length() - ".hdr".length());
    int newline;
    while ((newline = state.partial.indexOf("\n")) >= 0) {
      String line = state.partial.substring(0, newline).trim();
      state.partial.delete(0, newline + 1);
      handleLine(op, line, state);
    }
  }

  private void handleLine(String op, String line, LogState state) {
    Matcher start = START_TIME.matcher(line);
    if (start.find()) {
      state.baseMs = Math.round(Double.parseDouble(start.group(1)) * 1000);
      return;
    }
    if (line.isEmpty() || line.startsWith("#") || line.startsWith("\"") || state.baseMs < 0) {
      return;
    }
    // [Tag=...,]startS,lengthS,max,base64 with times relative to the log's StartTime.
    String[] parts = line.split(",");
    int n = parts.length;
    if (n < 4) {
      return;
    }
    try {
      long startMs = state.baseMs + Math.round(Double.parseDouble(parts[n - 4]) * 1000);
      long endMs = startMs + Math.round(Double.parseDouble(parts[n - 3]) * 1000);
      Histogram h = Histogram.decodeFromCompressedByteBuffer(
          ByteBuffer.wrap(Base64.getDecoder().decode(parts[n - 1])), 0);
      long count = h.getTotalCount();
      out.println(String.format(Locale.ROOT,
          "FRAGBENCH-INTERVAL op=%s startMs=%d endMs=%d count=%d avgUs=%.2f p95Us=%d p99Us=%d",
          op, startMs, endMs, count, count == 0 ? 0.0 : h.getMean(),
          count == 0 ? 0 : h.getValueAtPercentile(95), count == 0 ? 0 : h.getValueAtPercentile(99)));
    } catch (IllegalArgumentException | DataFormatException e) {
      out.println("FRAGBENCH-INTERVAL-ERROR op=" + op + " " + e);
    }
  }
}
