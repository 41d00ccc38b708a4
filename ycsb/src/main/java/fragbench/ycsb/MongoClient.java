package fragbench.ycsb;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.Updates;
import com.mongodb.client.result.DeleteResult;
import com.mongodb.client.result.UpdateResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.bson.conversions.Bson;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * YCSB binding for MongoDB (replica set or single server).
 * Properties: mongodb.url (mongodb://host:port,.../db?replicaSet=rs0; database defaults to ycsb),
 * mongodb.readPreference (primary, primaryPreferred, secondary, secondaryPreferred, nearest),
 * mongodb.writeConcern (majority, or a number of members such as 1), mongodb.timeoutMs,
 * mongodb.retries (extra attempts, default 0).
 * A record is a document {_id: key, field0: "...", ...}.
 */
public class MongoClient extends Binding {
  private static final Shared<Client> CLIENT = new Shared<>();

  private static final class Client implements AutoCloseable {
    final com.mongodb.client.MongoClient mongo;
    final MongoDatabase database;

    Client(com.mongodb.client.MongoClient mongo, MongoDatabase database) {
      this.mongo = mongo;
      this.database = database;
    }

    @Override
    public void close() {
      mongo.close();
    }
  }

  private MongoDatabase database;
  private Attempts attempts;

  @Override
  protected void connect(Props p) throws DBException {
    ConnectionString url = new ConnectionString(p.required("mongodb.url"));
    ReadPreference readPreference = readPreference(p.optional("mongodb.readPreference", "primary"));
    WriteConcern writeConcern = writeConcern(p.optional("mongodb.writeConcern", "majority"));
    int timeoutMs = p.integer("mongodb.timeoutMs", 2000);
    Client client = CLIENT.acquire(() -> {
      MongoClientSettings settings = MongoClientSettings.builder()
          .applyConnectionString(url)
          .readPreference(readPreference)
          .writeConcern(writeConcern.withWTimeout(timeoutMs, TimeUnit.MILLISECONDS))
          .applyToSocketSettings(s -> s.connectTimeout(timeoutMs, TimeUnit.MILLISECONDS)
              .readTimeout(timeoutMs, TimeUnit.MILLISECONDS))
          .applyToClusterSettings(c -> c.serverSelectionTimeout(timeoutMs, TimeUnit.MILLISECONDS))
          .applyToConnectionPoolSettings(c -> c.maxWaitTime(timeoutMs, TimeUnit.MILLISECONDS))
          .build();
      com.mongodb.client.MongoClient mongo = MongoClients.create(settings);
      String name = url.getDatabase() == null ? "ycsb" : url.getDatabase();
      return new Client(mongo, mongo.getDatabase(name));
    });
    database = client.database;
    attempts = new Attempts("mongodb", 1 + p.integer("mongodb.retries", 0));
  }

  private static ReadPreference readPreference(String name) throws DBException {
    try {
      return ReadPreference.valueOf(name);
    } catch (IllegalArgumentException e) {
      throw new DBException("property mongodb.readPreference: unknown read preference \"" + name
          + "\" (primary, primaryPreferred, secondary, secondaryPreferred, nearest)");
    }
  }

  private static WriteConcern writeConcern(String value) throws DBException {
    if (value.matches("\\d+")) {
      return new WriteConcern(Integer.parseInt(value));
    }
    if (value.equalsIgnoreCase("majority")) {
      return WriteConcern.MAJORITY;
    }
    WriteConcern named = WriteConcern.valueOf(value);
    if (named == null) {
      throw new DBException("property mongodb.writeConcern: unknown write concern \"" + value
          + "\" (majority, or a number of members)");
    }
    return named;
  }

  @Override
  public void cleanup() throws DBException {
    CLIENT.release();
  }

  private static Bson projection(Set<String> fields) {
    return fields == null ? null : Projections.include(new ArrayList<>(fields));
  }

  private static void copy(Document doc, Map<String, ByteIterator> into) {
    for (Map.Entry<String, Object> e : doc.entrySet()) {
      if (!"_id".equals(e.getKey()) && e.getValue() != null) {
        into.put(e.getKey(), new StringByteIterator(e.getValue().toString()));
      }
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    return attempts.run("read", () -> {
      Document doc = database.getCollection(table).find(Filters.eq("_id", key))
          .projection(projection(fields)).first();
      if (doc == null) {
        return Status.NOT_FOUND;
      }
      copy(doc, result);
      return Status.OK;
    });
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    return attempts.run("scan", () -> {
      result.clear();
      for (Document doc : database.getCollection(table).find(Filters.gte("_id", startkey))
          .projection(projection(fields)).sort(Sorts.ascending("_id")).limit(recordcount)) {
        HashMap<String, ByteIterator> row = new HashMap<>();
        copy(doc, row);
        result.add(row);
      }
      return Status.OK;
    });
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    Map<String, String> record = StringByteIterator.getStringMap(values);
    return attempts.run("update", () -> {
      List<Bson> sets = new ArrayList<>();
      record.forEach((field, value) -> sets.add(Updates.set(field, value)));
      UpdateResult r = database.getCollection(table).updateOne(Filters.eq("_id", key), Updates.combine(sets));
      return r.getMatchedCount() == 0 ? Status.NOT_FOUND : Status.OK;
    });
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    Document doc = new Document("_id", key);
    doc.putAll(StringByteIterator.getStringMap(values));
    return attempts.run("insert", () -> {
      // An upsert, so a retried attempt (or a second load) does not fail on the duplicate key.
      MongoCollection<Document> collection = database.getCollection(table);
      collection.replaceOne(Filters.eq("_id", key), doc, new ReplaceOptions().upsert(true));
      return Status.OK;
    });
  }

  @Override
  public Status delete(String table, String key) {
    return attempts.run("delete", () -> {
      DeleteResult r = database.getCollection(table).deleteOne(Filters.eq("_id", key));
      return r.getDeletedCount() == 0 ? Status.NOT_FOUND : Status.OK;
    });
  }
}
