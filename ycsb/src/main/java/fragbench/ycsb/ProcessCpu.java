package fragbench.ycsb;

import java.lang.management.ManagementFactory;

/** The CPU time this JVM has used so far, all threads: what a run of the client costs the host. */
final class ProcessCpu {
  private ProcessCpu() {
  }

  /** ms; -1 where the JVM does not say. */
  static long ms() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      long ns = os.getProcessCpuTime();
      return ns < 0 ? -1 : ns / 1_000_000;
    }
    return -1;
  }
}
