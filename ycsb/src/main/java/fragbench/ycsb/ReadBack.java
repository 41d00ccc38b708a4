package fragbench.ycsb;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * The final read-back of a checked run: reads each key given on stdin (one a line) once, with
 * every field, through CheckedDB around the binding, which writes each read to stdout as a
 * history record of type "f". The caller (services/consistency/read-back.ts) gives it the keys
 * the run wrote and feeds the records to the checker as they arrive.
 *
 *   java -cp ... fragbench.ycsb.ReadBack -db <binding class> [-threads n] [-p name=value]...
 *
 * Ends with `FRAGBENCH-READBACK keys=<n> failed=<m>` on stderr; exits 1 when the binding could
 * not connect (no read was made), 0 otherwise: a failed read is a record, not an error.
 */
public final class ReadBack {
  private ReadBack() {
  }

  public static void main(String[] args) throws InterruptedException {
    Properties props = new Properties();
    String binding = null;
    int threads = 4;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "-db":
          binding = args[++i];
          break;
        case "-threads":
          threads = Math.max(1, Integer.parseInt(args[++i]));
          break;
        case "-p": {
          String pair = args[++i];
          int eq = pair.indexOf('=');
          if (eq < 1) {
            usage("-p takes name=value, got " + pair);
          }
          props.setProperty(pair.substring(0, eq), pair.substring(eq + 1));
          break;
        }
        default:
          usage("unknown argument " + args[i]);
      }
    }
    if (binding == null) {
      usage("-db is required");
    }
    System.err.println("FRAGBENCH-PID " + ProcessHandle.current().pid());
    props.setProperty("fragbench.check.db", binding);
    props.setProperty("fragbench.check.history", "-");
    props.setProperty("fragbench.check.final", "true");
    props.setProperty("threadcount", String.valueOf(threads));
    String table = props.getProperty("table", "usertable");

    BufferedReader keys = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    AtomicLong read = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicReference<Exception> setup = new AtomicReference<>();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker = new Thread(() -> readKeys(props, table, keys, read, failed, setup), "fragbench-readback-" + t);
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) {
      worker.join();
    }
    System.out.flush();
    System.err.println("FRAGBENCH-READBACK keys=" + read.get() + " failed=" + failed.get());
    if (setup.get() != null) {
      System.err.println("site.ycsb.DBException: " + setup.get().getMessage());
      System.exit(1);
    }
  }

  private static void readKeys(Properties props, String table, BufferedReader keys, AtomicLong read, AtomicLong failed,
                               AtomicReference<Exception> setup) {
    CheckedDB db = new CheckedDB();
    db.setProperties(props);
    try {
      db.init();
    } catch (DBException e) {
      setup.compareAndSet(null, e);
      return;
    }
    try {
      for (String key = next(keys); key != null; key = next(keys)) {
        Map<String, ByteIterator> result = new HashMap<>();
        Status status = db.read(table, key, null, result);
        read.incrementAndGet();
        if (!status.isOk() && status != Status.NOT_FOUND) {
          failed.incrementAndGet();
        }
      }
    } finally {
      try {
        db.cleanup();
      } catch (DBException e) {
        System.err.println("fragbench readback: " + e.getMessage());
      }
    }
  }

  private static String next(BufferedReader keys) {
    synchronized (keys) {
      try {
        String line;
        do {
          line = keys.readLine();
        } while (line != null && line.isBlank());
        return line == null ? null : line.trim();
      } catch (IOException e) {
        return null;
      }
    }
  }

  private static void usage(String problem) {
    System.err.println("fragbench readback: " + problem);
    System.err.println("usage: fragbench.ycsb.ReadBack -db <binding class> [-threads n] [-p name=value]...");
    System.exit(2);
  }
}
