package fragbench.ycsb;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.Document;
import site.ycsb.ByteIterator;
import site.ycsb.StringByteIterator;

/**
 * JSON over HTTP for the bindings whose database speaks it (Riak, CouchDB): the JDK's client, one
 * per process (it is thread-safe and pools connections), and org.bson's Document for the JSON the
 * MongoDB driver already brings. Each YCSB thread talks to one server of the list, spread evenly.
 */
final class Http {
  private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static int nextServer;

  /** A reply: status and body. */
  static final class Reply {
    final int status;
    final String body;

    Reply(int status, String body) {
      this.status = status;
      this.body = body;
    }

    Document json() {
      return Document.parse(body);
    }
  }

  private final String base;
  private final Duration timeout;

  Http(List<String> servers, int timeoutMs) {
    synchronized (Http.class) {
      base = servers.get(nextServer++ % servers.size());
    }
    timeout = Duration.ofMillis(timeoutMs);
  }

  static String encode(String part) {
    return URLEncoder.encode(part, StandardCharsets.UTF_8).replace("+", "%20");
  }

  Reply send(String method, String path, Document body) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout);
    if (body == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body.toJson()));
    }
    HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(response.statusCode(), response.body());
  }

  /** A failure YCSB counts as an error (Attempts retries it), naming what the server said. */
  static IOException unexpected(String what, Reply reply) {
    return new IOException(what + " answered " + reply.status + ": " + reply.body);
  }

  /** A record's fields from a stored document, without the database's own keys (_id, _rev...). */
  static void copy(Document doc, Set<String> fields, Map<String, ByteIterator> into) {
    for (Map.Entry<String, Object> e : doc.entrySet()) {
      boolean wanted = fields == null || fields.contains(e.getKey());
      if (wanted && !e.getKey().startsWith("_") && e.getValue() != null) {
        into.put(e.getKey(), new StringByteIterator(e.getValue().toString()));
      }
    }
  }

  static Document record(Map<String, ByteIterator> values) {
    return new Document(StringByteIterator.getStringMap(values));
  }
}
