package fragbench.ycsb;

import java.util.concurrent.atomic.AtomicBoolean;
import site.ycsb.DB;
import site.ycsb.DBException;

/**
 * What every fragbench binding shares: after the first YCSB thread has connected, it prints
 * FRAGBENCH-READY <epoch ms>. YCSB's clock (its status thread) starts before the threads
 * connect, so the seconds before this line are the client starting, not the database working.
 * Then FRAGBENCH-CPU-READY <ms>, the CPU the JVM had used by then (its start, not the workload's).
 */
public abstract class Binding extends DB {
  private static final AtomicBoolean READY = new AtomicBoolean();

  /** Connects this thread's client; called once per YCSB thread. */
  protected abstract void connect(Props props) throws DBException;

  @Override
  public final void init() throws DBException {
    connect(new Props(getProperties()));
    if (READY.compareAndSet(false, true)) {
      System.err.println("FRAGBENCH-READY " + System.currentTimeMillis());
      System.err.println("FRAGBENCH-CPU-READY " + ProcessCpu.ms());
    }
  }
}
