package fragbench.ycsb;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import site.ycsb.DBException;

/** Reads binding properties, failing init with a message that names the property. */
final class Props {
  private final Properties props;

  Props(Properties props) {
    this.props = props;
  }

  String required(String name) throws DBException {
    String value = props.getProperty(name);
    if (value == null || value.isBlank()) {
      throw new DBException("missing property " + name + " (pass it with -p " + name + "=...)");
    }
    return value.trim();
  }

  String optional(String name, String fallback) {
    String value = props.getProperty(name);
    return value == null || value.isBlank() ? fallback : value.trim();
  }

  int integer(String name, int fallback) throws DBException {
    String value = optional(name, null);
    if (value == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new DBException("property " + name + " must be an integer, got \"" + value + "\"");
    }
  }

  boolean bool(String name, boolean fallback) {
    return Boolean.parseBoolean(optional(name, String.valueOf(fallback)));
  }

  /** YCSB's client thread count: connection pools are sized to it. */
  int threads() throws DBException {
    return Math.max(1, integer("threadcount", 1));
  }

  /** A comma-separated list of host:port. */
  List<InetSocketAddress> hosts(String name, int defaultPort) throws DBException {
    List<InetSocketAddress> out = new ArrayList<>();
    for (String part : required(name).split(",")) {
      String hostPort = part.trim();
      if (hostPort.isEmpty()) {
        continue;
      }
      int colon = hostPort.lastIndexOf(':');
      try {
        out.add(colon < 0
            ? InetSocketAddress.createUnresolved(hostPort, defaultPort)
            : InetSocketAddress.createUnresolved(hostPort.substring(0, colon),
                Integer.parseInt(hostPort.substring(colon + 1))));
      } catch (NumberFormatException e) {
        throw new DBException("property " + name + ": bad port in \"" + hostPort + "\"");
      }
    }
    if (out.isEmpty()) {
      throw new DBException("property " + name + " lists no host");
    }
    return out;
  }
}
