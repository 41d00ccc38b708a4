package fragbench.ycsb;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * YCSB binding for Redis, standalone or Redis Cluster.
 * Properties: redis.hosts (host:port,...), redis.cluster (true|false), redis.timeoutMs,
 * redis.maxAttempts (attempts per operation, first one included), redis.waitReplicas and
 * redis.waitTimeoutMs (WAIT-based writes: after each write, WAIT for that many replicas, at most
 * that long, on the write's own connection; fewer confirmations fail the write, though the master
 * applied it; 0, the default, writes without WAIT).
 * A record is a hash; every key is also a member of the sorted set {@value #INDEX} (all scores
 * 0), so a scan is ZRANGEBYLEX from the start key: records in key order, as workload E expects.
 */
public class RedisClient extends Binding {
  static final String INDEX = "_indices";
  private static final Shared<Client> CLIENT = new Shared<>();

  /**
   * The client every thread shares; with WAIT, also a way to the one connection of a key's node
   * (WAIT counts the replicas that have the writes of its own connection, so the write and the
   * WAIT must share one).
   */
  private static final class Client implements AutoCloseable {
    final UnifiedJedis jedis;
    /** Cluster with WAIT: the slot map, renewed when a write finds its slot moved or its node gone. */
    private final ClusterConnectionProvider slots;
    /** Standalone: the pool a WAIT borrows its connection from. */
    private final JedisPooled pooled;

    Client(UnifiedJedis jedis, ClusterConnectionProvider slots, JedisPooled pooled) {
      this.jedis = jedis;
      this.slots = slots;
      this.pooled = pooled;
    }

    Jedis onConnectionOf(String key) {
      Connection connection = slots != null ? slots.getConnectionFromSlot(JedisClusterCRC16.getSlot(key)) : pooled.getPool().getResource();
      return new Jedis(connection);
    }

    void afterFailure(Exception e) {
      if (slots != null && (e instanceof JedisMovedDataException || e instanceof JedisConnectionException)) {
        slots.renewSlotCache();
      }
    }

    @Override
    public void close() {
      jedis.close();
    }
  }

  private Client client;
  private UnifiedJedis jedis;
  private Attempts attempts;
  /** Inserts and updates: `attempts`, or with WAIT-based writes their own (see connect). */
  private Attempts writes;
  private int waitReplicas;
  private int waitTimeoutMs;

  @Override
  protected void connect(Props p) throws DBException {
    List<InetSocketAddress> hosts = p.hosts("redis.hosts", 6379);
    boolean cluster = p.bool("redis.cluster", false);
    int timeoutMs = p.integer("redis.timeoutMs", 2000);
    int maxAttempts = p.integer("redis.maxAttempts", 1);
    int threads = p.threads();
    waitReplicas = p.integer("redis.waitReplicas", 0);
    waitTimeoutMs = p.integer("redis.waitTimeoutMs", 1000);
    boolean waits = waitReplicas > 0;
    JedisClientConfig config = DefaultJedisClientConfig.builder()
        .connectionTimeoutMillis(timeoutMs)
        .socketTimeoutMillis(timeoutMs)
        .build();
    GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
    pool.setMaxTotal(Math.max(8, threads));
    pool.setMaxIdle(Math.max(8, threads));
    pool.setMaxWait(java.time.Duration.ofMillis(timeoutMs));
    client = CLIENT.acquire(() -> {
      if (cluster) {
        Set<HostAndPort> nodes = new HashSet<>();
        for (InetSocketAddress h : hosts) {
          nodes.add(new HostAndPort(h.getHostString(), h.getPort()));
        }
        if (!waits) {
          return new Client(new JedisCluster(nodes, config, maxAttempts, pool), null, null);
        }
        ClusterConnectionProvider slots = new ClusterConnectionProvider(nodes, config, pool);
        return new Client(new JedisCluster(slots, maxAttempts, Duration.ofMillis((long) timeoutMs * maxAttempts)), slots, null);
      }
      InetSocketAddress h = hosts.get(0);
      JedisPooled pooled = new JedisPooled(pool, new HostAndPort(h.getHostString(), h.getPort()), config);
      return new Client(pooled, null, pooled);
    });
    jedis = client.jedis;
    // JedisCluster retries (following MOVED/ASK and reconnecting) by itself; a standalone
    // pool does not, so the binding repeats the operation instead. A write with WAIT goes to
    // its node's connection directly, around JedisCluster's retries: the binding repeats it,
    // and a failed one renews the slot map first.
    attempts = new Attempts("redis", cluster ? 1 : maxAttempts);
    writes = waits ? new Attempts("redis", maxAttempts, client::afterFailure) : attempts;
  }

  /** HSET of the record, with WAIT after it on the same connection when WAIT-based writes are on. */
  private void writeRecord(String key, Map<String, String> record) throws FailureCause.ReplicationShortfall {
    if (waitReplicas == 0) {
      jedis.hset(key, record);
      return;
    }
    try (Jedis node = client.onConnectionOf(key)) {
      node.hset(key, record);
      long confirmed = node.waitReplicas(waitReplicas, waitTimeoutMs);
      if (confirmed < waitReplicas) {
        throw new FailureCause.ReplicationShortfall(confirmed, waitReplicas, waitTimeoutMs);
      }
    }
  }

  @Override
  public void cleanup() throws DBException {
    CLIENT.release();
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    return attempts.run("read", () -> readInto(key, fields, result));
  }

  private Status readInto(String key, Set<String> fields, Map<String, ByteIterator> result) {
    if (fields == null) {
      Map<String, String> all = jedis.hgetAll(key);
      if (all.isEmpty()) {
        return Status.NOT_FOUND;
      }
      StringByteIterator.putAllAsByteIterators(result, all);
      return Status.OK;
    }
    String[] names = fields.toArray(new String[0]);
    List<String> values = jedis.hmget(key, names);
    boolean any = false;
    for (int i = 0; i < names.length; i++) {
      if (values.get(i) != null) {
        result.put(names[i], new StringByteIterator(values.get(i)));
        any = true;
      }
    }
    return any ? Status.OK : Status.NOT_FOUND;
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    return attempts.run("scan", () -> {
      result.clear();
      for (String key : jedis.zrangeByLex(INDEX, "[" + startkey, "+", 0, recordcount)) {
        HashMap<String, ByteIterator> row = new HashMap<>();
        if (readInto(key, fields, row) == Status.OK) {
          result.add(row);
        }
      }
      return Status.OK;
    });
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    Map<String, String> record = StringByteIterator.getStringMap(values);
    return writes.run("update", () -> {
      writeRecord(key, record);
      return Status.OK;
    });
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    // Values are turned into strings once, so a retried attempt writes the same record.
    Map<String, String> record = StringByteIterator.getStringMap(values);
    return writes.run("insert", () -> {
      writeRecord(key, record);
      jedis.zadd(INDEX, 0, key);
      return Status.OK;
    });
  }

  @Override
  public Status delete(String table, String key) {
    return attempts.run("delete", () -> {
      long removed = jedis.del(key);
      jedis.zrem(INDEX, key);
      return removed == 0 ? Status.NOT_FOUND : Status.OK;
    });
  }
}
