// Prints Cassandra's ring as one node sees it, every <interval> ms, over one JMX connection: a
// line per endpoint in `nodetool status`'s first columns (`UN  <address>  ...`), then a line `--`.
// The adapter waits for a resize to complete on these. A `nodetool status` a second would be a
// new JVM a second, over a core of a 2-core host for as long as the wait lasts; this is one JVM.
// It reconnects after a failed read (the node restarting) and exits when its stdin closes, so it
// never outlives its caller.
//
// Usage (the adapter compiles it once per host): java -cp <classes>:<cassandra lib>/* RingWatch <jmx host> <jmx port> <interval ms>
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.cassandra.tools.NodeProbe;

public class RingWatch {
  public static void main(String[] args) throws Exception {
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    long intervalMs = Long.parseLong(args[2]);
    Thread caller = new Thread(() -> {
      try {
        while (System.in.read() >= 0) {}
      } catch (Exception closed) {
        // Same as end of input: the caller is gone.
      }
      System.exit(0);
    });
    caller.setDaemon(true);
    caller.start();

    NodeProbe probe = null;
    while (true) {
      long started = System.currentTimeMillis();
      StringBuilder out = new StringBuilder();
      try {
        if (probe == null) probe = new NodeProbe(host, port);
        ring(probe, out);
      } catch (Exception | Error noAnswer) {
        out.setLength(0);
        out.append("! ").append(String.valueOf(noAnswer).replace('\n', ' ')).append('\n');
        close(probe);
        probe = null;
      }
      out.append("--\n");
      System.out.print(out);
      System.out.flush();
      Thread.sleep(Math.max(0, intervalMs - (System.currentTimeMillis() - started)));
    }
  }

  /** Every endpoint that owns or is taking tokens, as `nodetool status` marks it. */
  private static void ring(NodeProbe probe, StringBuilder out) {
    Set<String> live = set(probe.getLiveNodes(false));
    Set<String> unreachable = set(probe.getUnreachableNodes(false));
    Set<String> joining = set(probe.getJoiningNodes(false));
    Set<String> leaving = set(probe.getLeavingNodes(false));
    Set<String> moving = set(probe.getMovingNodes(false));
    Set<String> endpoints = new TreeSet<>(probe.getTokenToEndpointMap(false).values());
    endpoints.addAll(joining);
    for (String endpoint : endpoints) {
      String status = live.contains(endpoint) ? "U" : unreachable.contains(endpoint) ? "D" : "?";
      String state = joining.contains(endpoint) ? "J" : leaving.contains(endpoint) ? "L" : moving.contains(endpoint) ? "M" : "N";
      out.append(status).append(state).append("  ").append(endpoint).append("  ring-watch\n");
    }
  }

  private static Set<String> set(List<String> list) {
    return new HashSet<>(list);
  }

  private static void close(NodeProbe probe) {
    if (probe == null) return;
    try {
      probe.close();
    } catch (Exception ignored) {
      // The connection is already broken; a new one is made next time.
    }
  }
}
