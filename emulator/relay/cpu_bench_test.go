package relay

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestCPUPerDatagram measures what relaying costs: one link with a 5 ms delay each way carries a
// stamped datagram from node A every 1/rate, node B echoes it, and the relay's CPU time per
// relayed datagram and each direction's delay error (arrival - send - configured delay) are
// printed. It is a measurement, not a check, so it runs only with FB_WAN_BENCH=1:
//
//	FB_WAN_BENCH=1 go test -run TestCPUPerDatagram -v ./relay
//
// FB_WAN_BENCH_RATE (datagrams/s from A, default 750, so 1,500 relayed), FB_WAN_BENCH_N (default
// 7,500 from A) and FB_WAN_BENCH_CPU (pin the relay and the test to that CPU, as the fleet pins
// its daemons) vary it. The relay runs in a child process, as fb-wan does, so that its
// getrusage(RUSAGE_SELF) counts the relay alone and not the test's senders and receivers.
func TestCPUPerDatagram(t *testing.T) {
	if os.Getenv("FB_WAN_BENCH") == "" {
		t.Skip("a measurement: set FB_WAN_BENCH=1 to run it")
	}
	rate, count := benchEnvInt("FB_WAN_BENCH_RATE", 750), benchEnvInt("FB_WAN_BENCH_N", 7500)
	if cpu := os.Getenv("FB_WAN_BENCH_CPU"); cpu != "" {
		pinToCPU(t, benchEnvInt("FB_WAN_BENCH_CPU", 0))
	}
	const delayMs = 5
	nodeA, nodeB := listenUDP(t, "127.77.30.100:0"), listenUDP(t, "127.77.30.200:0")
	viaA, viaB := netip.MustParseAddrPort("127.77.30.1:40001"), netip.MustParseAddrPort("127.77.30.1:40002")
	cfg := fmt.Sprintf(`{"links":[{"id":"bench","a":{"listen":%q,"peer":%q},"b":{"listen":%q,"peer":%q},`+
		`"ab":{"delayMs":%d},"ba":{"delayMs":%d}}]}`,
		viaA, nodeA.LocalAddr(), viaB, nodeB.LocalAddr(), delayMs, delayMs)

	parsed, err := ParseConfig([]byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	relay := startChildRelay(t, parsed, 0)

	// B records one-way errors A->B and echoes; A records one-way errors B->A (the echo keeps the
	// original stamp, so B->A is the round trip less the A->B leg as B saw it).
	const delayNs = delayMs * nsPerMs
	ab := make(chan []int64, 1)
	go func() {
		var errs []int64
		buf := make([]byte, 2048)
		nodeB.SetReadDeadline(time.Now().Add(time.Hour))
		for {
			n, _, err := nodeB.ReadFromUDPAddrPort(buf)
			if err != nil {
				ab <- errs
				return
			}
			_, sent := unstamp(buf)
			t := now()
			errs = append(errs, t-sent-delayNs)
			binary.LittleEndian.PutUint64(buf[16:], uint64(t))
			nodeB.WriteToUDPAddrPort(buf[:n], viaB)
		}
	}()
	ba := make(chan []int64, 1)
	go func() {
		var errs []int64
		buf := make([]byte, 2048)
		for len(errs) < count {
			nodeA.SetReadDeadline(time.Now().Add(time.Second))
			if _, _, err := nodeA.ReadFromUDPAddrPort(buf); err != nil {
				break
			}
			errs = append(errs, now()-int64(binary.LittleEndian.Uint64(buf[16:]))-delayNs)
		}
		ba <- errs
	}()

	before := relay.cpuNs(t)
	buf := make([]byte, 200)
	interval := time.Second / time.Duration(rate)
	start := time.Now()
	for seq := 0; seq < count; seq++ {
		// An absolute schedule, so late timer wake-ups do not lower the rate.
		time.Sleep(time.Until(start.Add(time.Duration(seq) * interval)))
		stamp(buf, uint64(seq))
		nodeA.WriteToUDPAddrPort(buf, viaA)
	}
	backErrs := <-ba
	used := relay.cpuNs(t) - before
	nodeB.SetReadDeadline(time.Now())
	aheadErrs := <-ab

	relayed := len(aheadErrs) + len(backErrs)
	t.Logf("%d datagrams/s relayed (%d from A, %d echoed back) over %.1f s", 2*rate, count, len(backErrs),
		time.Since(start).Seconds())
	t.Logf("relay CPU: %.1f us per relayed datagram", float64(used)/1e3/float64(relayed))
	for _, d := range []struct {
		name string
		errs []int64
	}{{"A->B", aheadErrs}, {"B->A", backErrs}} {
		us := make([]float64, len(d.errs))
		for i, e := range d.errs {
			us[i] = float64(e) / 1e3
		}
		t.Logf("%s delay error (us): p50 %.0f  p99 %.0f  min %.0f  max %.0f", d.name,
			percentile(us, 50), percentile(us, 99), percentile(us, 0), percentile(us, 100))
	}
}

func benchEnvInt(name string, fallback int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return fallback
}

// pinToCPU pins every thread of this process, and so the relay started after it, to one CPU.
func pinToCPU(t *testing.T, cpu int) {
	var mask [16]uint64
	mask[cpu/64] = 1 << (cpu % 64)
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid), uintptr(len(mask)*8),
			uintptr(unsafe.Pointer(&mask)))
		if errno != 0 {
			t.Fatalf("sched_setaffinity: %v", errno)
		}
	}
}
