package fragbench.ycsb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;
import site.ycsb.Client;

/**
 * Runs YCSB's site.ycsb.Client with one addition: the per-interval latency histograms that YCSB
 * cuts at each status line are decoded and printed to stderr as FRAGBENCH-INTERVAL lines (count,
 * mean, p95, p99, exact start and end), because YCSB 0.17's status line shows p90 and p99 only.
 *
 * YCSB writes those histograms when hdrhistogram.fileoutput is on; this class points the files
 * at a private temporary directory and tails them. It also prints its PID first
 * (FRAGBENCH-PID n), so a caller on another host can stop the client by PID, and, as it exits,
 * the CPU time it used (FRAGBENCH-CPU ms).
 *
 * Given EXIT_WITH_CALLER as its first argument, the client exits when its stdin closes: the
 * caller holds the other end of that pipe (through ssh or ip netns exec too), and a caller that
 * dies, even by SIGKILL, closes it. An orphaned client would go on loading the database, unseen,
 * beside the window the next worker repeats.
 */
public final class Main {
  static final String EXIT_WITH_CALLER = "--exit-with-caller";
  /** Exit status of a client whose caller went away (128 + SIGHUP, as a shell would report it). */
  private static final int ORPHANED_STATUS = 129;

  private Main() {
  }

  public static void main(String[] args) throws IOException {
    System.err.println("FRAGBENCH-PID " + ProcessHandle.current().pid());
    if (args.length > 0 && args[0].equals(EXIT_WITH_CALLER)) {
      args = Arrays.copyOfRange(args, 1, args.length);
      exitWhenStdinCloses();
    }
    Path dir = Files.createTempDirectory("fragbench-ycsb-");
    IntervalTailer tailer = new IntervalTailer(dir, System.err);
    // YCSB ends with System.exit after exporting: the last interval is printed from this hook,
    // and the CPU time the whole client used (what checking a history costs is measured by it).
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      tailer.stop();
      deleteTree(dir);
      System.err.println("FRAGBENCH-CPU " + ProcessCpu.ms());
    }, "fragbench-final-interval"));
    tailer.start();

    String[] withHistograms = Arrays.copyOf(args, args.length + 4);
    withHistograms[args.length] = "-p";
    withHistograms[args.length + 1] = "hdrhistogram.fileoutput=true";
    withHistograms[args.length + 2] = "-p";
    withHistograms[args.length + 3] = "hdrhistogram.output.path=" + dir + "/";
    Client.main(withHistograms);
  }

  private static void exitWhenStdinCloses() {
    Thread watcher = new Thread(() -> {
      try {
        while (System.in.read() >= 0) {
          // the caller never writes: only the end of the stream matters
        }
      } catch (IOException closed) {
        // a broken pipe is the same news as an end of file
      }
      System.err.println("FRAGBENCH-ORPHANED the caller closed stdin; stopping");
      System.exit(ORPHANED_STATUS);
    }, "fragbench-caller-watch");
    watcher.setDaemon(true);
    watcher.start();
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a leftover temporary directory is harmless
    }
  }
}
