package fragbench.ycsb;

import java.util.Map;
import java.util.Set;
import org.bson.Document;
import site.ycsb.ByteIterator;
import site.ycsb.Status;

/**
 * What the HTTP bindings (Riak, CouchDB) share: a record is one JSON document at a path per key;
 * a read GETs it, an update reads, merges and writes it back (neither database updates part of a
 * document in place).
 */
abstract class HttpRecordBinding extends Binding {
  protected Http http;
  protected Attempts attempts;

  /** The document's path on the server. */
  protected abstract String path(String key);

  /** Whether a write answered with this status stored the document. */
  protected abstract boolean stored(int status);

  protected Document fetch(String key) throws Exception {
    Http.Reply reply = http.send("GET", path(key), null);
    if (reply.status == 404) {
      return null;
    }
    if (reply.status != 200) {
      throw Http.unexpected("GET " + key, reply);
    }
    return reply.json();
  }

  protected Status store(String key, Document doc) throws Exception {
    Http.Reply reply = http.send("PUT", path(key), doc);
    if (!stored(reply.status)) {
      throw Http.unexpected("PUT " + key, reply);
    }
    return Status.OK;
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    return attempts.run("read", () -> {
      Document doc = fetch(key);
      if (doc == null) {
        return Status.NOT_FOUND;
      }
      Http.copy(doc, fields, result);
      return Status.OK;
    });
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    Document changes = Http.record(values);
    return attempts.run("update", () -> {
      Document doc = fetch(key);
      if (doc == null) {
        return Status.NOT_FOUND;
      }
      doc.putAll(changes);
      return store(key, doc);
    });
  }
}
